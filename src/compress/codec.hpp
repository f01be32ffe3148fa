#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ccsim::compress {

/// A real compressor of fp32 data (as opposed to CompressorModel, which only predicts one's
/// cost). Streams are self-describing: a stream carries its element count and whatever
/// else decompress() needs, so a receiver needs nothing but the bytes. Codecs are
/// stateless (error feedback is kept by the caller, see compress_with_feedback()) and
/// const methods are safe to call from several threads.
class Codec {
 public:
  virtual ~Codec() = default;

  /// The codec's spec as parsed, e.g. "ccsz:abs=0.0001"; it recreates the same codec.
  virtual std::string spec() const = 0;
  /// Short family name, e.g. "ccsz", "int8", "onebit", "zfp".
  virtual std::string_view name() const = 0;

  /// The largest stream compress() can write for `count` elements (receive buffers).
  virtual std::size_t max_compressed_bytes(std::size_t count) const = 0;
  /// Compresses `in` into `out`, resized to the stream's length.
  virtual void compress(std::span<const float> in, std::vector<std::byte>& out) const = 0;
  /// Elements in a stream; throws CodecError for a stream that is not one of this codec's.
  virtual std::size_t element_count(std::span<const std::byte> stream) const = 0;
  /// Decompresses a stream of exactly out.size() elements into `out`; throws CodecError
  /// for a malformed or truncated stream or a count that differs.
  virtual void decompress(std::span<const std::byte> stream, std::span<float> out) const = 0;
  /// out += decompress(stream), fused where the codec can.
  virtual void decompress_add(std::span<const std::byte> stream, std::span<float> out) const;

  /// The worst absolute error of one compress/decompress round trip of any element, when
  /// the codec guarantees one (error-bounded codecs); a negative value when it does not.
  virtual double error_bound() const { return -1.0; }
  /// Whether add_compressed() is supported: two streams of the same codec and bound add
  /// into a stream that decompresses to the sum, each element's error the sum of theirs.
  virtual bool homomorphic() const { return false; }
  /// out = a (+) b in compressed form; throws std::logic_error unless homomorphic().
  virtual void add_compressed(std::span<const std::byte> a, std::span<const std::byte> b,
                              std::vector<std::byte>& out) const;
};

/// A stream that a codec cannot decode.
class CodecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Compression with error feedback (Seide et al. 2014; Karimireddy et al. 2019): compresses
/// in + residual, then sets residual to what the round trip dropped, (in + residual) -
/// decompress(out), so that it is sent with the next step's data. `residual` has in.size()
/// elements and starts at zero; `scratch` is reused between calls.
void compress_with_feedback(const Codec& codec, std::span<const float> in, std::span<float> residual,
                            std::vector<std::byte>& out, std::vector<float>& scratch);

/// Builds a codec from a spec "NAME[:key=value,...]", e.g. "ccsz:abs=1e-4", "int8",
/// "int8:block=256", "onebit", "zfp:abs=1e-4". Throws InputError (field `field`) naming the
/// valid names and keys for a spec it cannot build.
std::unique_ptr<Codec> make_codec(std::string_view spec, std::string_view field = "--codec");

/// The codec names make_codec() accepts.
std::vector<std::string_view> codec_names();

}  // namespace ccsim::compress
