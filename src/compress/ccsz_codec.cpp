#include "compress/ccsz_codec.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "compress/rounding.hpp"
#include "compress/stream_io.hpp"

namespace ccsim::compress {
namespace {

constexpr char kCcszMagic[5] = "CCSZ";
constexpr std::uint8_t kCcszVersion = 1;
constexpr std::size_t kCcszHeaderBytes = 32;
constexpr std::uint8_t kRawTag = 255;
constexpr int kMaxWidth = 32;
constexpr std::size_t kGroup = 64;  // residuals packed per group: W 64-bit words

/// The quantisation grid of one bound.
struct Grid {
  float step;
  float inv_step;
  float threshold;  ///< an element passes when fl(|x - x'|) <= threshold
};

Grid make_grid(double abs) {
  // 2 * abs less a margin of 2^-9, rounded down to 12 significant bits, kept a normal float.
  int exponent = 0;
  double mantissa = std::frexp(2 * abs * (1 - 0x1p-9), &exponent);
  double step = std::ldexp(std::floor(mantissa * 4096) / 4096, exponent);
  step = std::clamp(step, static_cast<double>(std::numeric_limits<float>::min()), 0x1p127);
  Grid grid;
  grid.step = static_cast<float>(step);
  grid.inv_step = static_cast<float>(1 / step);
  // One float below the largest float <= abs: fl(d) <= that implies d < abs.
  float t = static_cast<float>(std::min(abs, static_cast<double>(std::numeric_limits<float>::max())));
  if (static_cast<double>(t) > abs) t = std::nextafter(t, 0.0f);
  grid.threshold = std::nextafter(t, 0.0f);
  return grid;
}

struct Quantized {
  std::int32_t qmin;
  std::int32_t qmax;
  bool ok;
};

// The kernels are written once as always-inline templates and compiled twice: for the
// baseline target and under target("avx2"), where GCC vectorises the fixed 64-element
// loops with 256-bit registers. No FMA is enabled, so both give identical results.

[[gnu::always_inline]] inline Quantized quantize_generic(const float* x, std::size_t n, std::int32_t* q, Grid g) {
  std::int32_t mn = std::numeric_limits<std::int32_t>::max();
  std::int32_t mx = std::numeric_limits<std::int32_t>::min();
  std::int32_t bad = 0;
  for (std::size_t c = 0; c < n; c += kGroup) {
    const float* xc = x + c;
    std::int32_t* qc = q + c;
    for (std::size_t j = 0; j < kGroup; ++j) {
      float p = xc[j] * g.inv_step + kRoundMagic;
      auto qi = static_cast<std::int32_t>(std::bit_cast<std::uint32_t>(p) - kRoundMagicBits);
      float r = static_cast<float>(qi) * g.step;
      float d = std::fabs(xc[j] - r);
      bad |= !(d <= g.threshold);
      qc[j] = qi;
      mn = std::min(mn, qi);
      mx = std::max(mx, qi);
    }
  }
  return {mn, mx, bad == 0};
}

template <int W>
[[gnu::always_inline]] inline void pack_generic(const std::int32_t* q, std::int32_t qmin, std::size_t n,
                                                std::byte* out) {
  if constexpr (W > 0) {
    for (std::size_t c = 0; c < n; c += kGroup) {
      std::uint32_t r[kGroup];
      for (std::size_t j = 0; j < kGroup; ++j) {
        r[j] = static_cast<std::uint32_t>(q[c + j]) - static_cast<std::uint32_t>(qmin);
      }
      std::uint64_t words[W] = {};
#pragma GCC unroll 64
      for (int k = 0; k < static_cast<int>(kGroup); ++k) {
        const int bit = k * W, i = bit >> 6, off = bit & 63;
        words[i] |= static_cast<std::uint64_t>(r[k]) << off;
        if (off + W > 64) words[i + 1] |= static_cast<std::uint64_t>(r[k]) >> (64 - off);
      }
      std::memcpy(out + c / kGroup * W * 8, words, W * 8);
    }
  }
}

template <int W>
[[gnu::always_inline]] inline void unpack_group(const std::byte* in, std::uint32_t* r) {
  if constexpr (W == 0) {
    for (std::size_t j = 0; j < kGroup; ++j) r[j] = 0;
  } else {
    std::uint64_t words[W];
    std::memcpy(words, in, W * 8);
    constexpr std::uint64_t kMask = (std::uint64_t{1} << W) - 1;
#pragma GCC unroll 64
    for (int k = 0; k < static_cast<int>(kGroup); ++k) {
      const int bit = k * W, i = bit >> 6, off = bit & 63;
      std::uint64_t v = words[i] >> off;
      if (off + W > 64) v |= words[i + 1] << (64 - off);
      r[k] = static_cast<std::uint32_t>(v & kMask);
    }
  }
}

template <int W, bool kAdd>
[[gnu::always_inline]] inline void unpack_generic(const std::byte* in, std::int32_t qmin, float step, std::size_t n,
                                                  float* out) {
  const auto base = static_cast<std::uint32_t>(qmin);
  for (std::size_t c = 0; c < n; c += kGroup) {
    std::uint32_t r[kGroup];
    unpack_group<W>(in + c / kGroup * W * 8, r);
    float* oc = out + c;
    for (std::size_t j = 0; j < kGroup; ++j) {
      float v = static_cast<float>(static_cast<std::int32_t>(base + r[j])) * step;
      if constexpr (kAdd) {
        oc[j] += v;
      } else {
        oc[j] = v;
      }
    }
  }
}

using QuantizeFn = Quantized (*)(const float*, std::size_t, std::int32_t*, Grid);
using PackFn = void (*)(const std::int32_t*, std::int32_t, std::size_t, std::byte*);
using UnpackFn = void (*)(const std::byte*, std::int32_t, float, std::size_t, float*);

struct Kernels {
  QuantizeFn quantize;
  PackFn pack[kMaxWidth + 1];
  UnpackFn unpack[kMaxWidth + 1];
  UnpackFn unpack_add[kMaxWidth + 1];
};

Quantized quantize_portable(const float* x, std::size_t n, std::int32_t* q, Grid g) {
  return quantize_generic(x, n, q, g);
}
template <int W>
void pack_portable(const std::int32_t* q, std::int32_t qmin, std::size_t n, std::byte* out) {
  pack_generic<W>(q, qmin, n, out);
}
template <int W, bool kAdd>
void unpack_portable(const std::byte* in, std::int32_t qmin, float step, std::size_t n, float* out) {
  unpack_generic<W, kAdd>(in, qmin, step, n, out);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define CCSIM_CCSZ_AVX2 1
[[gnu::target("avx2,bmi2")]] Quantized quantize_avx2(const float* x, std::size_t n, std::int32_t* q, Grid g) {
  return quantize_generic(x, n, q, g);
}
template <int W>
[[gnu::target("avx2,bmi2")]] void pack_avx2(const std::int32_t* q, std::int32_t qmin, std::size_t n, std::byte* out) {
  pack_generic<W>(q, qmin, n, out);
}
template <int W, bool kAdd>
[[gnu::target("avx2,bmi2")]] void unpack_avx2(const std::byte* in, std::int32_t qmin, float step, std::size_t n,
                                              float* out) {
  unpack_generic<W, kAdd>(in, qmin, step, n, out);
}
#endif

template <std::size_t... W>
Kernels portable_kernels(std::index_sequence<W...>) {
  return {quantize_portable, {pack_portable<W>...}, {unpack_portable<W, false>...}, {unpack_portable<W, true>...}};
}
#ifdef CCSIM_CCSZ_AVX2
template <std::size_t... W>
Kernels avx2_kernels(std::index_sequence<W...>) {
  return {quantize_avx2, {pack_avx2<W>...}, {unpack_avx2<W, false>...}, {unpack_avx2<W, true>...}};
}
#endif

const Kernels kPortable = portable_kernels(std::make_index_sequence<kMaxWidth + 1>());

bool cpu_has_avx2() {
#ifdef CCSIM_CCSZ_AVX2
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#else
  return false;
#endif
}

const Kernels* best_kernels() {
#ifdef CCSIM_CCSZ_AVX2
  static const Kernels kAvx2 = avx2_kernels(std::make_index_sequence<kMaxWidth + 1>());
  if (cpu_has_avx2()) return &kAvx2;
#endif
  return &kPortable;
}

const Kernels* g_kernels = best_kernels();

int width_of(std::int64_t qmin, std::int64_t qmax) { return std::bit_width(static_cast<std::uint64_t>(qmax - qmin)); }

/// One block of a stream, bounds-checked.
struct BlockView {
  std::uint8_t tag;
  std::int32_t qmin;
  const std::byte* payload;
};

BlockView read_block(StreamReader& r, std::size_t block, std::size_t n_here) {
  BlockView b{r.get<std::uint8_t>(), 0, nullptr};
  if (b.tag == kRawTag) {
    b.payload = r.bytes(n_here * sizeof(float)).data();
  } else if (b.tag <= kMaxWidth) {
    b.qmin = r.get<std::int32_t>();
    b.payload = r.bytes(b.tag * block / 8).data();
  } else {
    r.fail(fmt::format("bad block tag {}", b.tag));
  }
  return b;
}

struct Header {
  std::size_t block;
  std::size_t count;
  double abs;
};

Header read_header(StreamReader& r) {
  r.expect_magic(kCcszMagic, kCcszVersion);
  Header h;
  h.block = r.get<std::uint32_t>();
  r.get<std::uint32_t>();
  std::uint64_t count = r.get<std::uint64_t>();
  h.abs = r.get<double>();
  if (h.block == 0 || h.block % CcszCodec::kBlockMultiple != 0 || h.block > CcszCodec::kMaxBlock) {
    r.fail(fmt::format("bad block size {}", h.block));
  }
  if (!(h.abs > 0) || !std::isfinite(h.abs)) r.fail(fmt::format("bad error bound {}", h.abs));
  // Every block takes at least one byte: a count beyond that is a corrupt header.
  if (count / h.block > r.remaining()) r.fail(fmt::format("element count {} exceeds the stream", count));
  h.count = static_cast<std::size_t>(count);
  return h;
}

std::byte* write_header(std::byte* out, std::size_t block, std::size_t count, double abs) {
  out = put_magic(out, kCcszMagic, kCcszVersion);
  out = put(out, static_cast<std::uint32_t>(block));
  out = put(out, std::uint32_t{0});
  out = put(out, static_cast<std::uint64_t>(count));
  return put(out, abs);
}

/// Grows `out` so that `need` bytes fit from `pos`; zero-fills only what is new.
std::byte* ensure(std::vector<std::byte>& out, std::size_t pos, std::size_t need) {
  if (pos + need > out.size()) out.resize(std::max(out.size() + out.size() / 2, pos + need));
  return out.data() + pos;
}

}  // namespace

CcszCodec::CcszCodec(double abs, std::size_t block) : abs_(abs), block_(block) {
  if (!(abs > 0) || !std::isfinite(abs)) throw std::invalid_argument(fmt::format("ccsz: bad error bound {}", abs));
  if (block == 0 || block % kBlockMultiple != 0 || block > kMaxBlock) {
    throw std::invalid_argument(fmt::format("ccsz: bad block size {}", block));
  }
  Grid g = make_grid(abs);
  step_ = g.step;
  inv_step_ = g.inv_step;
  threshold_ = g.threshold;
}

bool CcszCodec::uses_avx2() { return g_kernels != &kPortable; }
void CcszCodec::set_portable(bool portable) { g_kernels = portable ? &kPortable : best_kernels(); }

std::string CcszCodec::spec() const {
  if (block_ == kDefaultBlock) return fmt::format("ccsz:abs={}", abs_);
  return fmt::format("ccsz:abs={},block={}", abs_, block_);
}

std::size_t CcszCodec::max_compressed_bytes(std::size_t count) const {
  std::size_t blocks = (count + block_ - 1) / block_;
  return kCcszHeaderBytes + blocks * (5 + 4 * block_);
}

void CcszCodec::compress(std::span<const float> in, std::vector<std::byte>& out) const {
  const Kernels& k = *g_kernels;
  const Grid g{step_, inv_step_, threshold_};
  const std::size_t n = in.size();
  const std::size_t max_block_bytes = 5 + 4 * block_;
  thread_local std::vector<std::int32_t> q;
  thread_local std::vector<float> tail;
  q.resize(block_);

  std::size_t pos = 0;
  std::byte* p = ensure(out, 0, kCcszHeaderBytes + std::min(n, max_compressed_bytes(n)) + max_block_bytes);
  pos = write_header(p, block_, n, abs_) - out.data();
  for (std::size_t start = 0; start < n; start += block_) {
    const std::size_t n_here = std::min(block_, n - start);
    const float* x = in.data() + start;
    if (n_here < block_) {  // pad the last block with its last value
      tail.assign(x, x + n_here);
      tail.resize(block_, x[n_here - 1]);
      x = tail.data();
    }
    p = ensure(out, pos, max_block_bytes);
    Quantized s = k.quantize(x, block_, q.data(), g);
    if (!s.ok) {
      *p++ = std::byte{kRawTag};
      std::memcpy(p, in.data() + start, n_here * sizeof(float));
      pos += 1 + n_here * sizeof(float);
      continue;
    }
    const int w = width_of(s.qmin, s.qmax);
    *p++ = static_cast<std::byte>(w);
    p = put(p, s.qmin);
    k.pack[w](q.data(), s.qmin, block_, p);
    pos += 5 + w * block_ / 8;
  }
  out.resize(pos);
}

std::size_t CcszCodec::element_count(std::span<const std::byte> stream) const {
  StreamReader r(stream, "ccsz");
  return read_header(r).count;
}

template <bool kAdd>
void CcszCodec::decode(std::span<const std::byte> stream, std::span<float> out) const {
  const Kernels& k = *g_kernels;
  StreamReader r(stream, "ccsz");
  const Header h = read_header(r);
  if (h.count != out.size()) {
    throw CodecError(fmt::format("ccsz: stream has {} elements, expected {}", h.count, out.size()));
  }
  const float step = make_grid(h.abs).step;
  thread_local std::vector<float> tail;
  for (std::size_t start = 0; start < h.count; start += h.block) {
    const std::size_t n_here = std::min(h.block, h.count - start);
    const BlockView b = read_block(r, h.block, n_here);
    float* dst = out.data() + start;
    if (b.tag == kRawTag) {
      if constexpr (kAdd) {
        for (std::size_t i = 0; i < n_here; ++i) {
          float v;
          std::memcpy(&v, b.payload + i * sizeof(float), sizeof(float));
          dst[i] += v;
        }
      } else {
        std::memcpy(dst, b.payload, n_here * sizeof(float));
      }
    } else if (n_here == h.block) {
      (kAdd ? k.unpack_add : k.unpack)[b.tag](b.payload, b.qmin, step, h.block, dst);
    } else {
      tail.resize(h.block);
      k.unpack[b.tag](b.payload, b.qmin, step, h.block, tail.data());
      for (std::size_t i = 0; i < n_here; ++i) {
        if constexpr (kAdd) {
          dst[i] += tail[i];
        } else {
          dst[i] = tail[i];
        }
      }
    }
  }
  if (r.remaining() != 0) r.fail("trailing bytes after the last block");
}

void CcszCodec::decompress(std::span<const std::byte> stream, std::span<float> out) const {
  decode<false>(stream, out);
}

void CcszCodec::decompress_add(std::span<const std::byte> stream, std::span<float> out) const {
  decode<true>(stream, out);
}

/// Long: the codec's inner loop over block pairs, kept whole for the compiler.
void CcszCodec::add_compressed(std::span<const std::byte> a, std::span<const std::byte> b,
                               std::vector<std::byte>& out) const {
  StreamReader ra(a, "ccsz");
  StreamReader rb(b, "ccsz");
  const Header ha = read_header(ra);
  const Header hb = read_header(rb);
  if (ha.count != hb.count || ha.block != hb.block || ha.abs != hb.abs) {
    throw CodecError(
        fmt::format("ccsz: cannot add streams of {} elements, block {}, abs {} and {} elements, block {}, "
                    "abs {}",
                    ha.count, ha.block, ha.abs, hb.count, hb.block, hb.abs));
  }
  const std::size_t block = ha.block;
  const float step = make_grid(ha.abs).step;
  const Kernels& k = *g_kernels;
  thread_local std::vector<std::int32_t> q;
  thread_local std::vector<float> fa, fb;
  q.resize(block);
  fa.resize(block);
  fb.resize(block);
  std::vector<std::uint32_t> r1(block), r2(block);

  const std::size_t max_block_bytes = 5 + 4 * block;
  std::byte* p = ensure(out, 0, kCcszHeaderBytes + max_block_bytes + std::min(a.size(), b.size()));
  std::size_t pos = write_header(p, block, ha.count, ha.abs) - out.data();
  for (std::size_t start = 0; start < ha.count; start += block) {
    const std::size_t n_here = std::min(block, ha.count - start);
    const BlockView ba = read_block(ra, block, n_here);
    const BlockView bb = read_block(rb, block, n_here);
    p = ensure(out, pos, max_block_bytes);
    if (ba.tag != kRawTag && bb.tag != kRawTag) {
      std::int64_t mn = std::numeric_limits<std::int64_t>::max();
      std::int64_t mx = std::numeric_limits<std::int64_t>::min();
      for (std::size_t c = 0; c < block; c += kGroup) {
        using UnpackU32 = void (*)(const std::byte*, std::uint32_t*);
        static constexpr auto kUnpack = []<std::size_t... W>(std::index_sequence<W...>) {
          return std::array<UnpackU32, kMaxWidth + 1>{unpack_group<W>...};
        }
        (std::make_index_sequence<kMaxWidth + 1>());
        kUnpack[ba.tag](ba.payload + c / kGroup * ba.tag * 8, r1.data() + c);
        kUnpack[bb.tag](bb.payload + c / kGroup * bb.tag * 8, r2.data() + c);
      }
      // Only the first n_here elements count: the padding of a last block is recomputed.
      for (std::size_t i = 0; i < n_here; ++i) {
        std::int64_t s = static_cast<std::int64_t>(ba.qmin) + r1[i] + static_cast<std::int64_t>(bb.qmin) + r2[i];
        mn = std::min(mn, s);
        mx = std::max(mx, s);
      }
      if (mn >= std::numeric_limits<std::int32_t>::min() && mx <= std::numeric_limits<std::int32_t>::max()) {
        for (std::size_t i = 0; i < block; ++i) {
          std::int64_t s =
              i < n_here ? static_cast<std::int64_t>(ba.qmin) + r1[i] + static_cast<std::int64_t>(bb.qmin) + r2[i] : mn;
          q[i] = static_cast<std::int32_t>(s);
        }
        const int w = width_of(mn, mx);
        const auto qmin = static_cast<std::int32_t>(mn);
        *p++ = static_cast<std::byte>(w);
        p = put(p, qmin);
        k.pack[w](q.data(), qmin, block, p);
        pos += 5 + w * block / 8;
        continue;
      }
    }
    // A raw block on either side, or a sum outside int32: store float(a' + b').
    auto decode_block = [&](const BlockView& v, std::vector<float>& f) {
      if (v.tag == kRawTag) {
        std::memcpy(f.data(), v.payload, n_here * sizeof(float));
      } else {
        kPortable.unpack[v.tag](v.payload, v.qmin, step, block, f.data());
      }
    };
    decode_block(ba, fa);
    decode_block(bb, fb);
    *p++ = std::byte{kRawTag};
    for (std::size_t i = 0; i < n_here; ++i) {
      p = put(p, static_cast<float>(static_cast<double>(fa[i]) + static_cast<double>(fb[i])));
    }
    pos += 1 + n_here * sizeof(float);
  }
  if (ra.remaining() != 0) ra.fail("trailing bytes after the last block");
  if (rb.remaining() != 0) rb.fail("trailing bytes after the last block");
  out.resize(pos);
}

}  // namespace ccsim::compress
