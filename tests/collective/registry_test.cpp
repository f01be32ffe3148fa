#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "collective/registry.hpp"
#include "core/input_error.hpp"
#include "support.hpp"

using namespace ccsim::collective;
using namespace ccsim::collective::testing;

namespace {

Request all_reduce(int size, std::uint64_t bytes, std::string algorithm = "auto") {
  Request request;
  request.op = Collective::kAllReduce;
  request.algorithm = std::move(algorithm);
  request.size = size;
  request.element_bytes = 4;
  request.count = bytes / 4;
  return request;
}

std::string message_of(const Request& request) {
  try {
    make_schedule(request);
  } catch (const ccsim::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("registry lists the algorithms of each collective, auto first", "[collective][registry]") {
  CHECK(algorithms(Collective::kAllReduce) ==
        std::vector<std::string_view>{"auto", "ring", "recursive-doubling", "rabenseifner", "binomial-tree",
                                      "hierarchical", "compressed-ring", "homomorphic-ring", "compressed-allgather"});
  CHECK(algorithms(Collective::kBroadcast) == std::vector<std::string_view>{"auto", "binomial-tree"});
  CHECK(algorithms(Collective::kAllGather) == std::vector<std::string_view>{"auto", "ring"});
  CHECK(algorithms(Collective::kReduceScatter) == std::vector<std::string_view>{"auto", "ring"});
  CHECK(algorithms(Collective::kAllToAll) == std::vector<std::string_view>{"auto", "pairwise"});
  CHECK(to_string(Collective::kAllToAll) == "all_to_all");
  CHECK(to_string(Compression::kNonSummable) == "non-summable");
}

TEST_CASE("registry chooses all_reduce algorithms as MPI libraries do", "[collective][registry]") {
  CHECK(choose_algorithm(all_reduce(1, 1 << 20)) == "ring");
  CHECK(choose_algorithm(all_reduce(8, 1024)) == "recursive-doubling");
  CHECK(choose_algorithm(all_reduce(6, 2048)) == "recursive-doubling");
  CHECK(choose_algorithm(all_reduce(8, 2052)) == "rabenseifner");
  CHECK(choose_algorithm(all_reduce(8, 1 << 20)) == "rabenseifner");
  CHECK(choose_algorithm(all_reduce(8, (1 << 20) + 4)) == "ring");
  CHECK(choose_algorithm(all_reduce(6, 65536)) == "ring");
  CHECK(choose_algorithm(all_reduce(8, 256 << 20)) == "ring");

  Request two_nodes = all_reduce(8, 65536);
  two_nodes.node_of_rank = {0, 0, 0, 0, 1, 1, 1, 1};
  CHECK(choose_algorithm(two_nodes) == "hierarchical");
  two_nodes.count = 16;  // small messages stay latency-bound
  CHECK(choose_algorithm(two_nodes) == "recursive-doubling");
  Request one_per_node = all_reduce(8, 65536);
  one_per_node.node_of_rank = {0, 1, 2, 3, 4, 5, 6, 7};
  CHECK(choose_algorithm(one_per_node) == "rabenseifner");
  Request one_node = all_reduce(8, 65536);
  one_node.node_of_rank = std::vector<int>(8, 3);
  CHECK(choose_algorithm(one_node) == "rabenseifner");
  Request uneven = all_reduce(8, 65536);
  uneven.node_of_rank = {0, 0, 0, 0, 0, 1, 1, 1};
  CHECK(choose_algorithm(uneven) == "rabenseifner");

  Request compressed = all_reduce(8, 1024);
  compressed.compression = Compression::kHomomorphic;
  CHECK(choose_algorithm(compressed) == "homomorphic-ring");
  compressed.compression = Compression::kErrorBounded;
  CHECK(choose_algorithm(compressed) == "compressed-ring");
  compressed.compression = Compression::kNonSummable;
  CHECK(choose_algorithm(compressed) == "compressed-allgather");
}

TEST_CASE("registry chooses the other collectives' only algorithm", "[collective][registry]") {
  Request request = all_reduce(4, 4096);
  request.op = Collective::kBroadcast;
  request.root = 2;
  CHECK(choose_algorithm(request) == "binomial-tree");
  auto broadcast = make_schedule(request);
  CHECK(broadcast->name() == "binomial-tree");
  // The root's buffer reaches everyone.
  Buffers buffers = distinct_inputs(4, request.count);
  execute_in_memory(*broadcast, buffers);
  CHECK(buffers[0] == buffers[2]);
  request.op = Collective::kAllGather;
  CHECK(make_schedule(request)->name() == "ring");
  request.op = Collective::kReduceScatter;
  CHECK(make_schedule(request)->name() == "ring");
  request.op = Collective::kAllToAll;
  CHECK(make_schedule(request)->name() == "pairwise");
}

TEST_CASE("registry builds every all_reduce algorithm by name", "[collective][registry]") {
  for (std::string_view name : algorithms(Collective::kAllReduce)) {
    Request request = all_reduce(6, 6 * 40);
    request.algorithm = std::string(name);
    request.node_of_rank = {0, 0, 1, 1, 2, 2};
    if (name.starts_with("compressed")) request.compression = Compression::kErrorBounded;
    if (name == "homomorphic-ring") request.compression = Compression::kHomomorphic;
    auto schedule = make_schedule(request);
    if (name != "auto") CHECK(schedule->name() == name);
    require_all_reduced(*schedule);
  }
}

TEST_CASE("registry refuses unknown and unfit algorithms, word for word", "[collective][registry]") {
  CHECK(message_of(all_reduce(4, 4096, "tree")) ==
        "--algo: unknown all_reduce algorithm \"tree\"; choices: auto, ring, recursive-doubling, rabenseifner, "
        "binomial-tree, hierarchical, compressed-ring, homomorphic-ring, compressed-allgather");
  Request broadcast = all_reduce(4, 4096, "ring");
  broadcast.op = Collective::kBroadcast;
  CHECK(message_of(broadcast) == "--algo: unknown broadcast algorithm \"ring\"; choices: auto, binomial-tree");

  CHECK(message_of(all_reduce(8, 4096, "hierarchical")) ==
        "--algo: all_reduce algorithm \"hierarchical\" needs the node of every rank, which is not known here");
  Request uneven = all_reduce(8, 4096, "hierarchical");
  uneven.node_of_rank = {0, 0, 0, 0, 0, 1, 1, 1};
  CHECK(message_of(uneven) ==
        "--algo: hierarchical all_reduce needs the same number of the group's ranks on every node, but node 0 holds "
        "5 and node 1 holds 3");

  CHECK(message_of(all_reduce(8, 4096, "compressed-ring")) ==
        "--algo: all_reduce algorithm \"compressed-ring\" needs a compressor, and none is set");
  Request plain = all_reduce(8, 4096, "ring");
  plain.compression = Compression::kErrorBounded;
  CHECK(message_of(plain) ==
        "--algo: all_reduce algorithm \"ring\" does not compress, but the compressor is error-bounded; choose auto, "
        "compressed-ring, homomorphic-ring or compressed-allgather, or no compressor");
  Request homomorphic = all_reduce(8, 4096, "homomorphic-ring");
  homomorphic.compression = Compression::kNonSummable;
  CHECK(message_of(homomorphic) ==
        "--algo: all_reduce algorithm \"homomorphic-ring\" needs a homomorphic compressor (one whose compressed "
        "blocks add), but the compressor is non-summable");

  Request compressed_gather = all_reduce(8, 4096);
  compressed_gather.op = Collective::kAllGather;
  compressed_gather.compression = Compression::kErrorBounded;
  CHECK_THROWS_WITH(make_schedule(compressed_gather),
                    "all_gather has no compressed algorithm; request it with compression none");
  Request bad_root = all_reduce(4, 4096);
  bad_root.op = Collective::kBroadcast;
  bad_root.root = 7;
  CHECK_THROWS_AS(make_schedule(bad_root), std::invalid_argument);
}

TEST_CASE("hierarchical on one node or with one rank per node is the ring, and says so", "[collective][registry]") {
  Request one_node = all_reduce(8, 65536, "hierarchical");
  one_node.node_of_rank = std::vector<int>(8, 3);
  CHECK(choose_algorithm(one_node) == "ring");
  CHECK(make_schedule(one_node)->algorithm() == Algorithm::kRingAllReduce);
  Request one_per_node = all_reduce(8, 65536, "hierarchical");
  one_per_node.node_of_rank = {0, 1, 2, 3, 4, 5, 6, 7};
  CHECK(choose_algorithm(one_per_node) == "ring");
  Request two_levels = all_reduce(8, 65536, "hierarchical");
  two_levels.node_of_rank = {0, 0, 0, 0, 1, 1, 1, 1};
  CHECK(choose_algorithm(two_levels) == "hierarchical");
}

TEST_CASE("every schedule's send peers are those of its steps, in order of first send", "[collective][registry]") {
  // Schedules that override send_peers() (the rings, hierarchical) say in O(1) what the
  // default reads off the steps: checked on groups of 1 to 12, node layouts of 1, 2 and 3 ranks.
  int overridden = 0;
  for (const AlgorithmInfo& info : algorithm_table()) {
    for (int size = 1; size <= 12; ++size) {
      for (int per_node : {1, 2, 3}) {
        if (size % per_node != 0) continue;
        INFO(info.name << " on " << size << " ranks, " << per_node << " per node");
        Request request = all_reduce(size, 4 * 1000, std::string(info.name));
        request.op = info.op;
        for (int r = 0; r < size; ++r) request.node_of_rank.push_back(r / per_node);
        if (info.compresses()) {
          request.compression =
              info.name == "homomorphic-ring" ? Compression::kHomomorphic : Compression::kErrorBounded;
        }
        std::unique_ptr<Schedule> schedule;
        try {
          schedule = make_schedule(request);
        } catch (const ccsim::InputError&) {
          continue;  // a layout or size this algorithm does not take
        }
        for (int r = 0; r < size; ++r) {
          INFO("rank " << r);
          const std::vector<int> expected = send_peers_of(schedule->steps(r));
          CHECK(schedule->send_peers(r) == expected);
          if (size > 1 && (info.name == "ring" || info.name == "hierarchical")) {
            ++overridden;
            CHECK_FALSE(expected.empty());
          }
        }
      }
    }
  }
  CHECK(overridden > 100);
}

TEST_CASE("algorithm table: every row builds its own schedule and lists derive from it", "[collective][registry]") {
  for (const AlgorithmInfo& info : algorithm_table()) {
    INFO(info.name);
    CHECK(&algorithm_info(info.id) == &info);
    CHECK(find_algorithm(info.op, info.name) == &info);
    Request request = all_reduce(4, 4096, std::string(info.name));
    request.op = info.op;
    request.node_of_rank = {0, 0, 1, 1};
    if (info.compresses()) request.compression = Compression::kHomomorphic;
    CHECK(make_schedule(request)->algorithm() == info.id);
  }
  CHECK(find_algorithm(Collective::kAllReduce, "auto") == nullptr);
  CHECK(plain_all_reduce_algorithms() ==
        std::vector<std::string_view>{"ring", "recursive-doubling", "rabenseifner", "binomial-tree", "hierarchical"});
  CHECK(plain_all_reduce_algorithms(NodeLayout::kUnknown) ==
        std::vector<std::string_view>{"ring", "recursive-doubling", "rabenseifner", "binomial-tree"});
  CHECK(compressed_all_reduce_algorithms() ==
        std::vector<std::string_view>{"compressed-ring", "homomorphic-ring", "compressed-allgather"});
}
