#include "collective/algorithm.hpp"

#include <array>

#include "collective/binomial_broadcast.hpp"
#include "collective/binomial_tree_all_reduce.hpp"
#include "collective/compressed_all_gather_all_reduce.hpp"
#include "collective/compressed_ring_all_reduce.hpp"
#include "collective/hierarchical_all_reduce.hpp"
#include "collective/homomorphic_ring_all_reduce.hpp"
#include "collective/pairwise_all_to_all.hpp"
#include "collective/rabenseifner_all_reduce.hpp"
#include "collective/recursive_doubling_all_reduce.hpp"
#include "collective/registry.hpp"
#include "collective/ring_all_gather.hpp"
#include "collective/ring_all_reduce.hpp"
#include "collective/ring_reduce_scatter.hpp"
#include "compress/compressor_model.hpp"

namespace ccsim::collective {
namespace {

constexpr std::uint8_t bit(Compression compression) {
  return static_cast<std::uint8_t>(1u << static_cast<unsigned>(compression));
}
constexpr std::uint8_t kPlain = bit(Compression::kNone);
constexpr std::uint8_t kAnyCompressor =
    bit(Compression::kErrorBounded) | bit(Compression::kHomomorphic) | bit(Compression::kNonSummable);

/// The factory of a schedule whose constructor takes (size, count, element_bytes).
template <class S>
std::unique_ptr<Schedule> make(const Request& request) {
  return std::make_unique<S>(request.size, request.count, request.element_bytes);
}

std::unique_ptr<Schedule> make_hierarchical(const Request& request) {
  return std::make_unique<HierarchicalAllReduce>(request.size, request.count, request.element_bytes,
                                                 request.node_of_rank);
}

std::unique_ptr<Schedule> make_broadcast(const Request& request) {
  return std::make_unique<BinomialBroadcast>(request.size, request.count, request.element_bytes, request.root);
}

// Rows in the order of the Algorithm enum.
constexpr Collective kAllReduce = Collective::kAllReduce;
constexpr std::array<AlgorithmInfo, 12> kTable = {{
    {Algorithm::kRingAllReduce, "ring", kAllReduce, kPlain, "", false, &make<RingAllReduce>},
    {Algorithm::kRecursiveDoubling, "recursive-doubling", kAllReduce, kPlain, "", false,
     &make<RecursiveDoublingAllReduce>},
    {Algorithm::kRabenseifner, "rabenseifner", kAllReduce, kPlain, "", false, &make<RabenseifnerAllReduce>},
    {Algorithm::kBinomialTreeAllReduce, "binomial-tree", kAllReduce, kPlain, "", false, &make<BinomialTreeAllReduce>},
    {Algorithm::kHierarchical, "hierarchical", kAllReduce, kPlain, "", true, &make_hierarchical},
    {Algorithm::kCompressedRing, "compressed-ring", kAllReduce, kAnyCompressor, "", false,
     &make<CompressedRingAllReduce>},
    {Algorithm::kHomomorphicRing, "homomorphic-ring", kAllReduce, bit(Compression::kHomomorphic),
     "a homomorphic compressor (one whose compressed blocks add)", false, &make<HomomorphicRingAllReduce>},
    {Algorithm::kCompressedAllGather, "compressed-allgather", kAllReduce, kAnyCompressor, "", false,
     &make<CompressedAllGatherAllReduce>},
    {Algorithm::kRingAllGather, "ring", Collective::kAllGather, kPlain, "", false, &make<RingAllGather>},
    {Algorithm::kRingReduceScatter, "ring", Collective::kReduceScatter, kPlain, "", false, &make<RingReduceScatter>},
    {Algorithm::kBinomialBroadcast, "binomial-tree", Collective::kBroadcast, kPlain, "", false, &make_broadcast},
    {Algorithm::kPairwiseAllToAll, "pairwise", Collective::kAllToAll, kPlain, "", false, &make<PairwiseAllToAll>},
}};

constexpr bool in_enum_order() {
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    if (static_cast<std::size_t>(kTable[i].id) != i) return false;
  }
  return true;
}
static_assert(in_enum_order(), "kTable lists the algorithms in the order of the Algorithm enum");

}  // namespace

Compression compression_of(const compress::CompressorModel& model) {
  if (model.homomorphic()) return Compression::kHomomorphic;
  return model.summable() ? Compression::kErrorBounded : Compression::kNonSummable;
}

std::string_view to_string(Collective op) {
  switch (op) {
    case Collective::kAllReduce:
      return "all_reduce";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kBroadcast:
      return "broadcast";
    case Collective::kAllToAll:
      return "all_to_all";
  }
  return "?";
}

std::string_view to_string(Compression compression) {
  switch (compression) {
    case Compression::kNone:
      return "none";
    case Compression::kErrorBounded:
      return "error-bounded";
    case Compression::kHomomorphic:
      return "homomorphic";
    case Compression::kNonSummable:
      return "non-summable";
  }
  return "?";
}

std::span<const AlgorithmInfo> algorithm_table() { return kTable; }

const AlgorithmInfo& algorithm_info(Algorithm algorithm) { return kTable.at(static_cast<std::size_t>(algorithm)); }

const AlgorithmInfo* find_algorithm(Collective op, std::string_view name) {
  for (const AlgorithmInfo& info : kTable) {
    if (info.op == op && info.name == name) return &info;
  }
  return nullptr;
}

}  // namespace ccsim::collective
