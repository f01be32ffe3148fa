#include "collective/registry.hpp"

#include <algorithm>
#include <bit>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collective/binomial_broadcast.hpp"
#include "collective/binomial_tree_all_reduce.hpp"
#include "collective/compressed_all_gather_all_reduce.hpp"
#include "collective/compressed_ring_all_reduce.hpp"
#include "collective/hierarchical_all_reduce.hpp"
#include "collective/homomorphic_ring_all_reduce.hpp"
#include "collective/pairwise_all_to_all.hpp"
#include "collective/rabenseifner_all_reduce.hpp"
#include "collective/recursive_doubling_all_reduce.hpp"
#include "collective/ring_all_gather.hpp"
#include "collective/ring_all_reduce.hpp"
#include "collective/ring_reduce_scatter.hpp"
#include "core/input_error.hpp"

namespace ccsim::collective {
namespace {

constexpr std::string_view kCompressedAllReduce[] = {"compressed-ring", "homomorphic-ring", "compressed-allgather"};

[[noreturn]] void refuse(const std::string& detail) { throw InputError("--algo", 0, "", detail); }

bool is_compressed(std::string_view algorithm) {
  return std::find(std::begin(kCompressedAllReduce), std::end(kCompressedAllReduce), algorithm) !=
         std::end(kCompressedAllReduce);
}

/// Nodes and ranks per node of a layout fit for hierarchical, or {0, 0}.
std::pair<int, int> hierarchical_shape(const Request& request) {
  if (request.node_of_rank.empty() || !HierarchicalAllReduce::layout_error(request.node_of_rank, request.size).empty()) {
    return {0, 0};
  }
  const auto nodes = static_cast<int>(std::set<int>(request.node_of_rank.begin(), request.node_of_rank.end()).size());
  return {nodes, request.size / nodes};
}

std::string auto_all_reduce(const Request& request) {
  switch (request.compression) {
    case Compression::kHomomorphic: return "homomorphic-ring";
    case Compression::kErrorBounded: return "compressed-ring";
    case Compression::kNonSummable: return "compressed-allgather";
    case Compression::kNone: break;
  }
  const std::uint64_t bytes = request.count * static_cast<std::uint64_t>(std::max(request.element_bytes, 0));
  if (request.size <= 1) return "ring";
  if (bytes <= kShortAllReduceBytes) return "recursive-doubling";
  if (auto [nodes, per_node] = hierarchical_shape(request); nodes >= 2 && per_node >= 2) return "hierarchical";
  if (std::has_single_bit(static_cast<unsigned>(request.size)) && bytes <= kLargeAllReduceBytes &&
      request.count >= static_cast<std::uint64_t>(request.size)) {
    return "rabenseifner";
  }
  return "ring";
}

/// Throws unless the explicitly chosen all_reduce `algorithm` fits the request.
void check_all_reduce_fit(const Request& request, std::string_view algorithm) {
  const bool compressed = is_compressed(algorithm);
  if (compressed && request.compression == Compression::kNone) {
    refuse(fmt::format("all_reduce algorithm \"{}\" needs a compressor, and none is set", algorithm));
  }
  if (!compressed && request.compression != Compression::kNone) {
    refuse(fmt::format("all_reduce algorithm \"{}\" does not compress, but the compressor is {}; choose auto, "
                       "compressed-ring, homomorphic-ring or compressed-allgather, or no compressor",
                       algorithm, to_string(request.compression)));
  }
  if (algorithm == "homomorphic-ring" && request.compression != Compression::kHomomorphic) {
    refuse(fmt::format("all_reduce algorithm \"homomorphic-ring\" needs a homomorphic compressor (one whose compressed "
                       "blocks add), but the compressor is {}",
                       to_string(request.compression)));
  }
  if (algorithm == "hierarchical") {
    if (request.node_of_rank.empty()) {
      refuse("all_reduce algorithm \"hierarchical\" needs the node of every rank, which is not known here");
    }
    if (std::string error = HierarchicalAllReduce::layout_error(request.node_of_rank, request.size); !error.empty()) {
      refuse(error);
    }
  }
}

}  // namespace

std::string_view to_string(Collective op) {
  switch (op) {
    case Collective::kAllReduce: return "all_reduce";
    case Collective::kAllGather: return "all_gather";
    case Collective::kReduceScatter: return "reduce_scatter";
    case Collective::kBroadcast: return "broadcast";
    case Collective::kAllToAll: return "all_to_all";
  }
  return "?";
}

std::string_view to_string(Compression compression) {
  switch (compression) {
    case Compression::kNone: return "none";
    case Compression::kErrorBounded: return "error-bounded";
    case Compression::kHomomorphic: return "homomorphic";
    case Compression::kNonSummable: return "non-summable";
  }
  return "?";
}

std::vector<std::string_view> algorithms(Collective op) {
  switch (op) {
    case Collective::kAllReduce:
      return {"auto",         "ring",         "recursive-doubling", "rabenseifner",        "binomial-tree",
              "hierarchical", "compressed-ring", "homomorphic-ring", "compressed-allgather"};
    case Collective::kAllGather:
    case Collective::kReduceScatter: return {"auto", "ring"};
    case Collective::kBroadcast: return {"auto", "binomial-tree"};
    case Collective::kAllToAll: return {"auto", "pairwise"};
  }
  return {};
}

std::string choose_algorithm(const Request& request) {
  const auto names = algorithms(request.op);
  if (std::find(names.begin(), names.end(), request.algorithm) == names.end()) {
    refuse(fmt::format("unknown {} algorithm \"{}\"; choices: {}", to_string(request.op), request.algorithm,
                       fmt::join(names, ", ")));
  }
  if (request.op != Collective::kAllReduce) {
    if (request.compression != Compression::kNone) {
      throw std::invalid_argument(fmt::format("{} has no compressed algorithm; request it with compression none",
                                              to_string(request.op)));
    }
    return request.algorithm == "auto" ? std::string(names[1]) : request.algorithm;
  }
  if (request.algorithm == "auto") return auto_all_reduce(request);
  check_all_reduce_fit(request, request.algorithm);
  return request.algorithm;
}

std::unique_ptr<Schedule> make_schedule(const Request& request) {
  const std::string name = choose_algorithm(request);
  const int p = request.size;
  const std::uint64_t count = request.count;
  const int bytes = request.element_bytes;
  switch (request.op) {
    case Collective::kAllGather: return std::make_unique<RingAllGather>(p, count, bytes);
    case Collective::kReduceScatter: return std::make_unique<RingReduceScatter>(p, count, bytes);
    case Collective::kBroadcast: return std::make_unique<BinomialBroadcast>(p, count, bytes, request.root);
    case Collective::kAllToAll: return std::make_unique<PairwiseAllToAll>(p, count, bytes);
    case Collective::kAllReduce: break;
  }
  if (name == "ring") return std::make_unique<RingAllReduce>(p, count, bytes);
  if (name == "recursive-doubling") return std::make_unique<RecursiveDoublingAllReduce>(p, count, bytes);
  if (name == "rabenseifner") return std::make_unique<RabenseifnerAllReduce>(p, count, bytes);
  if (name == "binomial-tree") return std::make_unique<BinomialTreeAllReduce>(p, count, bytes);
  if (name == "hierarchical") return std::make_unique<HierarchicalAllReduce>(p, count, bytes, request.node_of_rank);
  if (name == "compressed-ring") return std::make_unique<CompressedRingAllReduce>(p, count, bytes);
  if (name == "homomorphic-ring") return std::make_unique<HomomorphicRingAllReduce>(p, count, bytes);
  if (name == "compressed-allgather") return std::make_unique<CompressedAllGatherAllReduce>(p, count, bytes);
  throw std::logic_error(fmt::format("make_schedule: all_reduce algorithm \"{}\" is listed but not built", name));
}

}  // namespace ccsim::collective
