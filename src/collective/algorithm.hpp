#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace ccsim::compress {
class CompressorModel;
}

namespace ccsim::collective {

class Schedule;
struct Request;

/// A collective operation.
enum class Collective : std::uint8_t { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kAllToAll };

/// What a compressor lets an all_reduce do with compressed data; it decides which compressed
/// algorithms apply.
enum class Compression : std::uint8_t {
  kNone,          ///< no compression: plain algorithms
  kErrorBounded,  ///< error-bounded (SZx, ZFP): decompressed values are summed and recompressed
  kHomomorphic,   ///< compressed blocks can be added as they are (quantizers onto a common grid)
  kNonSummable,   ///< outputs that neither add nor recompress well (1-bit sign + scale, int8, top-k)
};

/// The kind of compression `model` allows: homomorphic, else error-bounded when its outputs
/// can be summed and recompressed, else non-summable.
Compression compression_of(const compress::CompressorModel& model);

/// "all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all".
std::string_view to_string(Collective op);
/// "none", "error-bounded", "homomorphic", "non-summable".
std::string_view to_string(Compression compression);

/// An algorithm: one schedule implementing one collective. Its identity is its row in
/// algorithm_table().
enum class Algorithm : std::uint8_t {
  kRingAllReduce,
  kRecursiveDoubling,
  kRabenseifner,
  kBinomialTreeAllReduce,
  kHierarchical,
  kCompressedRing,
  kHomomorphicRing,
  kCompressedAllGather,
  kRingAllGather,
  kRingReduceScatter,
  kBinomialBroadcast,
  kPairwiseAllToAll,
};

/// One row of the algorithm table: name, collective, compressors accepted, and factory.
struct AlgorithmInfo {
  Algorithm id;
  std::string_view name;  ///< unique among the algorithms of `op`; as on the command line and in reports
  Collective op;
  std::uint8_t compressions;  ///< bit set of the Compression kinds it runs with (bit = 1 << kind)
  /// When it accepts only some compressors: the one it needs, for messages ("a homomorphic
  /// compressor (...)"); else empty.
  std::string_view compressor_needed;
  bool needs_nodes;  ///< needs the node of every rank (Request::node_of_rank)
  /// Builds the schedule for a request already checked by choose_algorithm().
  std::unique_ptr<Schedule> (*make)(const Request& request);

  bool accepts(Compression compression) const { return (compressions >> static_cast<unsigned>(compression) & 1u) != 0; }
  /// Whether it runs with a compressor (and only with one).
  bool compresses() const { return !accepts(Compression::kNone); }
};

/// Every algorithm, grouped by collective, in the order they are listed to users.
std::span<const AlgorithmInfo> algorithm_table();
/// The row of `algorithm`.
const AlgorithmInfo& algorithm_info(Algorithm algorithm);
/// The algorithm of `op` called `name`, or nullptr ("auto" is not an algorithm).
const AlgorithmInfo* find_algorithm(Collective op, std::string_view name);

}  // namespace ccsim::collective
