#include "compress/zfp_codec.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <zfp.h>

#include "compress/stream_io.hpp"

namespace ccsim::compress {
namespace {

constexpr char kZfpMagic[5] = "CCZF";
constexpr std::uint8_t kZfpVersion = 1;
constexpr std::size_t kZfpHeaderBytes = 32;

/// zfp's stream, field and bit stream, closed in reverse order.
class ZfpSession {
 public:
  ZfpSession(double tolerance, float* data, std::size_t count, void* buffer, std::size_t bytes)
      : zfp_(zfp_stream_open(nullptr)), field_(zfp_field_1d(data, zfp_type_float, count)) {
    if (!zfp_ || !field_) throw std::runtime_error("zfp: cannot open a stream");
    zfp_stream_set_accuracy(zfp_, tolerance);
    if (buffer) attach(buffer, bytes);
  }
  ~ZfpSession() {
    if (zfp_) zfp_stream_close(zfp_);
    if (bits_) stream_close(bits_);
    if (field_) zfp_field_free(field_);
  }
  ZfpSession(const ZfpSession&) = delete;
  ZfpSession& operator=(const ZfpSession&) = delete;

  void attach(void* buffer, std::size_t bytes) {
    bits_ = stream_open(buffer, bytes);
    if (!bits_) throw std::runtime_error("zfp: cannot open a bit stream");
    zfp_stream_set_bit_stream(zfp_, bits_);
    zfp_stream_rewind(zfp_);
  }
  std::size_t maximum_size() const { return zfp_stream_maximum_size(zfp_, field_); }
  zfp_stream* stream() { return zfp_; }
  zfp_field* field() { return field_; }

 private:
  zfp_stream* zfp_;
  zfp_field* field_;
  bitstream* bits_ = nullptr;
};

}  // namespace

ZfpCodec::ZfpCodec(double tolerance) : tolerance_(tolerance) {
  if (!(tolerance > 0) || !std::isfinite(tolerance)) {
    throw std::invalid_argument(fmt::format("zfp: bad tolerance {}", tolerance));
  }
}

std::string ZfpCodec::spec() const { return fmt::format("zfp:abs={}", tolerance_); }

std::size_t ZfpCodec::max_compressed_bytes(std::size_t count) const {
  if (count == 0) return kZfpHeaderBytes;
  ZfpSession s(tolerance_, nullptr, count, nullptr, 0);
  return kZfpHeaderBytes + s.maximum_size();
}

void ZfpCodec::compress(std::span<const float> in, std::vector<std::byte>& out) const {
  out.resize(max_compressed_bytes(in.size()));
  std::byte* p = put_magic(out.data(), kZfpMagic, kZfpVersion);
  p = put(p, static_cast<std::uint64_t>(in.size()));
  p = put(p, tolerance_);
  std::size_t payload = 0;
  if (!in.empty()) {
    ZfpSession s(tolerance_, const_cast<float*>(in.data()), in.size(), out.data() + kZfpHeaderBytes,
                 out.size() - kZfpHeaderBytes);
    payload = zfp_compress(s.stream(), s.field());
    if (payload == 0) throw std::runtime_error("zfp: compression failed");
  }
  put(p, static_cast<std::uint64_t>(payload));
  out.resize(kZfpHeaderBytes + payload);
}

std::size_t ZfpCodec::element_count(std::span<const std::byte> stream) const {
  StreamReader r(stream, "zfp");
  r.expect_magic(kZfpMagic, kZfpVersion);
  auto count = r.get<std::uint64_t>();
  auto tolerance = r.get<double>();
  auto payload = r.get<std::uint64_t>();
  if (!(tolerance > 0) || !std::isfinite(tolerance)) r.fail(fmt::format("bad tolerance {}", tolerance));
  if (payload != r.remaining()) r.fail(fmt::format("payload of {} bytes, {} present", payload, r.remaining()));
  // zfp spends at least one bit per block of 4 values.
  if (count / 32 > payload + 1) r.fail(fmt::format("element count {} exceeds the stream", count));
  if (count > 0 && payload == 0) r.fail("empty payload");
  return static_cast<std::size_t>(count);
}

void ZfpCodec::decompress(std::span<const std::byte> stream, std::span<float> out) const {
  const std::size_t count = element_count(stream);
  if (count != out.size()) throw CodecError(fmt::format("zfp: stream has {} elements, expected {}", count, out.size()));
  if (count == 0) return;
  double tolerance;
  std::memcpy(&tolerance, stream.data() + 16, sizeof tolerance);
  ZfpSession s(tolerance, out.data(), count, nullptr, 0);
  const std::size_t payload = stream.size() - kZfpHeaderBytes;
  // zfp reads whole 64-bit words and trusts the stream: give it a zero-padded copy as
  // large as any stream of this shape can be.
  const std::size_t padded = std::max(s.maximum_size(), payload) + 8;
  std::unique_ptr<std::uint64_t[]> buffer(new std::uint64_t[(padded + 7) / 8]());
  std::memcpy(buffer.get(), stream.data() + kZfpHeaderBytes, payload);
  s.attach(buffer.get(), padded);
  if (zfp_decompress(s.stream(), s.field()) == 0) throw CodecError("zfp: decompression failed");
}

}  // namespace ccsim::compress
