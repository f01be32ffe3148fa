// The real codecs (ccsz, int8, onebit, zfp). The input's first byte picks a codec spec
// (low 3 bits) and a mode (bit 3):
// - decode: the rest is a stream, decoded as a receiver would (element_count, decompress,
//   decompress_add, add_compressed); a corrupted stream must be a CodecError, never a crash,
//   and a stream whose count differs from the buffer must be refused;
// - round trip: the rest is fp32 data, compressed and decompressed; the stream must fit
//   max_compressed_bytes(), carry the count, and an error-bounded codec must keep its bound.

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "compress/codec.hpp"
#include "fuzz_target.hpp"

namespace {

using namespace ccsim;
using compress::Codec;
using compress::CodecError;

/// Streams that claim more elements are skipped: the caller sizes the output buffer.
constexpr std::size_t kMaxElements = std::size_t{1} << 20;

const std::vector<std::unique_ptr<Codec>>& codecs() {
  static const std::vector<std::unique_ptr<Codec>> all = [] {
    std::vector<std::unique_ptr<Codec>> v;
    for (const char* spec : {"ccsz:abs=1e-3", "ccsz:abs=0.5,block=64", "int8", "int8:block=7", "onebit",
                             "onebit:block=64", "zfp:abs=1e-3", "zfp:abs=0.25"}) {
      v.push_back(compress::make_codec(spec));
    }
    return v;
  }();
  return all;
}

void decode(const Codec& codec, std::span<const std::byte> stream) {
  std::size_t count = 0;
  try {
    count = codec.element_count(stream);
  } catch (const CodecError&) {
    return;
  }
  if (count > kMaxElements) return;
  std::vector<float> out(count);
  try {
    codec.decompress(stream, out);
    codec.decompress_add(stream, out);
  } catch (const CodecError&) {
  }
  std::vector<float> wrong(count + 1);
  try {
    codec.decompress(stream, wrong);
    __builtin_trap();  // a stream of `count` elements decoded into count + 1
  } catch (const CodecError&) {
  }
  if (codec.homomorphic()) {
    std::vector<std::byte> sum;
    try {
      codec.add_compressed(stream, stream, sum);
      std::vector<float> total(count);
      codec.decompress(sum, total);
    } catch (const CodecError&) {
    }
  }
}

void round_trip(const Codec& codec, const std::uint8_t* data, std::size_t size) {
  std::vector<float> in(size / sizeof(float));
  if (!in.empty()) std::memcpy(in.data(), data, in.size() * sizeof(float));
  std::vector<std::byte> stream;
  codec.compress(in, stream);
  if (stream.size() > codec.max_compressed_bytes(in.size())) __builtin_trap();
  if (codec.element_count(stream) != in.size()) __builtin_trap();
  std::vector<float> out(in.size());
  codec.decompress(stream, out);
  const double bound = codec.error_bound();
  if (bound < 0) return;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const double x = in[i];
    if (!std::isfinite(x) || std::abs(x) > 1e6) continue;  // bounds are for data in a sane range
    // The bound, up to the rounding of the decoded value to fp32.
    if (!(std::abs(x - static_cast<double>(out[i])) <= bound * (1 + 1e-6) + std::abs(x) * 0x1p-23)) __builtin_trap();
  }
}

}  // namespace

CCSIM_FUZZ_TARGET(codec) {
  if (size < 1) return 0;
  const Codec& codec = *codecs()[data[0] & 7];
  if ((data[0] & 8) != 0) {
    round_trip(codec, data + 1, size - 1);
  } else {
    decode(codec, std::span(reinterpret_cast<const std::byte*>(data + 1), size - 1));
  }
  return 0;
}
