#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "compress/codec.hpp"

namespace ccsim::compress {

// Streams are written in the host's byte order, which must be little-endian (x86-64,
// AArch64): a stream is read on the same kind of machine it was written on.
static_assert(std::endian::native == std::endian::little, "codec streams assume a little-endian host");

/// Appends fixed-size values to a byte buffer at a cursor (the caller sized the buffer).
template <class T>
inline std::byte* put(std::byte* out, T value) {
  std::memcpy(out, &value, sizeof(T));
  return out + sizeof(T);
}

/// Bounds-checked reading of a codec stream: every overrun or bad value is a CodecError
/// that names the codec and the offset.
class StreamReader {
 public:
  StreamReader(std::span<const std::byte> stream, std::string_view codec) : stream_(stream), codec_(codec) {}

  template <class T>
  T get() {
    T value;
    std::memcpy(&value, bytes(sizeof(T)).data(), sizeof(T));
    return value;
  }

  std::span<const std::byte> bytes(std::size_t n) {
    if (n > remaining()) fail("truncated stream");
    std::span<const std::byte> out = stream_.subspan(pos_, n);
    pos_ += n;
    return out;
  }

  /// Checks the 4-byte magic and the version byte (followed by 3 reserved bytes).
  void expect_magic(const char (&magic)[5], std::uint8_t version) {
    if (remaining() < 8 || std::memcmp(stream_.data(), magic, 4) != 0) {
      fail("not a " + codec_ + " stream (bad magic)");
    }
    pos_ = 4;
    if (get<std::uint8_t>() != version) fail("unsupported stream version");
    pos_ = 8;
  }

  std::size_t remaining() const { return stream_.size() - pos_; }
  std::size_t position() const { return pos_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw CodecError(codec_ + ": " + what + " at byte " + std::to_string(pos_) + " of " +
                     std::to_string(stream_.size()));
  }

 private:
  std::span<const std::byte> stream_;
  std::string codec_;
  std::size_t pos_ = 0;
};

/// Writes the common 8-byte preamble: magic, version, 3 reserved zero bytes.
inline std::byte* put_magic(std::byte* out, const char (&magic)[5], std::uint8_t version) {
  std::memcpy(out, magic, 4);
  out[4] = std::byte{version};
  out[5] = out[6] = out[7] = std::byte{0};
  return out + 8;
}

}  // namespace ccsim::compress
