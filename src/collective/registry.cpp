#include "collective/registry.hpp"

#include <algorithm>
#include <bit>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collective/hierarchical_all_reduce.hpp"
#include "core/input_error.hpp"

namespace ccsim::collective {
namespace {

[[noreturn]] void refuse(const std::string& detail) { throw InputError("--algo", 0, "", detail); }

/// Nodes and ranks per node of a layout fit for hierarchical, or {0, 0}.
std::pair<int, int> hierarchical_shape(const Request& request) {
  if (request.node_of_rank.empty() ||
      !HierarchicalAllReduce::layout_error(request.node_of_rank, request.size).empty()) {
    return {0, 0};
  }
  const auto nodes = static_cast<int>(std::set<int>(request.node_of_rank.begin(), request.node_of_rank.end()).size());
  return {nodes, request.size / nodes};
}

/// Whether the node layout makes hierarchical more than a ring: >= 2 nodes, >= 2 ranks on each.
bool two_level(const Request& request) {
  auto [nodes, per_node] = hierarchical_shape(request);
  return nodes >= 2 && per_node >= 2;
}

Algorithm auto_all_reduce(const Request& request) {
  switch (request.compression) {
    case Compression::kHomomorphic:
      return Algorithm::kHomomorphicRing;
    case Compression::kErrorBounded:
      return Algorithm::kCompressedRing;
    case Compression::kNonSummable:
      return Algorithm::kCompressedAllGather;
    case Compression::kNone:
      break;
  }
  const std::uint64_t bytes = request.count * static_cast<std::uint64_t>(std::max(request.element_bytes, 0));
  if (request.size <= 1) return Algorithm::kRingAllReduce;
  if (bytes <= kShortAllReduceBytes) return Algorithm::kRecursiveDoubling;
  if (two_level(request)) return Algorithm::kHierarchical;
  if (std::has_single_bit(static_cast<unsigned>(request.size)) && bytes <= kLargeAllReduceBytes &&
      request.count >= static_cast<std::uint64_t>(request.size)) {
    return Algorithm::kRabenseifner;
  }
  return Algorithm::kRingAllReduce;
}

/// "a, b or c".
std::string or_list(const std::vector<std::string_view>& names) {
  if (names.size() < 2) return fmt::format("{}", fmt::join(names, ""));
  return fmt::format("{} or {}", fmt::join(names.begin(), names.end() - 1, ", "), names.back());
}

/// Throws unless the explicitly chosen all_reduce `algorithm` fits the request.
void check_all_reduce_fit(const Request& request, const AlgorithmInfo& algorithm) {
  if (algorithm.compresses() && request.compression == Compression::kNone) {
    refuse(fmt::format("all_reduce algorithm \"{}\" needs a compressor, and none is set", algorithm.name));
  }
  if (!algorithm.compresses() && request.compression != Compression::kNone) {
    std::vector<std::string_view> choices = compressed_all_reduce_algorithms();
    choices.insert(choices.begin(), "auto");
    refuse(
        fmt::format("all_reduce algorithm \"{}\" does not compress, but the compressor is {}; choose {}, or no "
                    "compressor",
                    algorithm.name, to_string(request.compression), or_list(choices)));
  }
  if (!algorithm.accepts(request.compression)) {
    refuse(fmt::format("all_reduce algorithm \"{}\" needs {}, but the compressor is {}", algorithm.name,
                       algorithm.compressor_needed, to_string(request.compression)));
  }
  if (algorithm.needs_nodes && request.node_of_rank.empty()) {
    refuse(fmt::format("all_reduce algorithm \"{}\" needs the node of every rank, which is not known here",
                       algorithm.name));
  }
  if (algorithm.id == Algorithm::kHierarchical) {
    if (std::string error = HierarchicalAllReduce::layout_error(request.node_of_rank, request.size); !error.empty()) {
      refuse(error);
    }
  }
}

/// The first algorithm of `op` in the table (its only one, for the collectives other than
/// all_reduce).
const AlgorithmInfo& first_algorithm(Collective op) {
  for (const AlgorithmInfo& info : algorithm_table()) {
    if (info.op == op) return info;
  }
  throw std::logic_error(fmt::format("algorithm table: no algorithm for {}", to_string(op)));
}

/// The algorithm make_schedule() builds (see choose_algorithm()).
const AlgorithmInfo& choose(const Request& request) {
  const AlgorithmInfo* named = find_algorithm(request.op, request.algorithm);
  if (named == nullptr && request.algorithm != "auto") {
    refuse(fmt::format("unknown {} algorithm \"{}\"; choices: {}", to_string(request.op), request.algorithm,
                       fmt::join(algorithms(request.op), ", ")));
  }
  if (request.op != Collective::kAllReduce) {
    if (request.compression != Compression::kNone) {
      throw std::invalid_argument(
          fmt::format("{} has no compressed algorithm; request it with compression none", to_string(request.op)));
    }
    return named != nullptr ? *named : first_algorithm(request.op);
  }
  if (named == nullptr) return algorithm_info(auto_all_reduce(request));
  check_all_reduce_fit(request, *named);
  // On one node, or with one rank per node, the two levels collapse into one ring: say so.
  if (named->id == Algorithm::kHierarchical && !two_level(request)) return algorithm_info(Algorithm::kRingAllReduce);
  return *named;
}

/// The names of the all_reduce algorithms for which `keep` holds, in table order.
template <class Keep>
std::vector<std::string_view> all_reduce_algorithms(Keep keep) {
  std::vector<std::string_view> names;
  for (const AlgorithmInfo& info : algorithm_table()) {
    if (info.op == Collective::kAllReduce && keep(info)) names.push_back(info.name);
  }
  return names;
}

}  // namespace

std::vector<std::string_view> algorithms(Collective op) {
  std::vector<std::string_view> names = {"auto"};
  for (const AlgorithmInfo& info : algorithm_table()) {
    if (info.op == op) names.push_back(info.name);
  }
  return names;
}

std::vector<std::string_view> plain_all_reduce_algorithms(NodeLayout layout) {
  return all_reduce_algorithms([layout](const AlgorithmInfo& info) {
    return !info.compresses() && (layout == NodeLayout::kKnown || !info.needs_nodes);
  });
}

std::vector<std::string_view> compressed_all_reduce_algorithms() {
  return all_reduce_algorithms([](const AlgorithmInfo& info) { return info.compresses(); });
}

std::string choose_algorithm(const Request& request) { return std::string(choose(request).name); }

std::unique_ptr<Schedule> make_schedule(const Request& request) { return choose(request).make(request); }

}  // namespace ccsim::collective
