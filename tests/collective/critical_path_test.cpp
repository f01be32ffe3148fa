#include <catch2/catch.hpp>

#include <memory>
#include <stdexcept>
#include <vector>

#include "collective/binomial_broadcast.hpp"
#include "collective/binomial_tree_all_reduce.hpp"
#include "collective/compressed_all_gather_all_reduce.hpp"
#include "collective/compressed_ring_all_reduce.hpp"
#include "collective/critical_path_executor.hpp"
#include "collective/hierarchical_all_reduce.hpp"
#include "collective/homomorphic_ring_all_reduce.hpp"
#include "collective/pairwise_all_to_all.hpp"
#include "collective/rabenseifner_all_reduce.hpp"
#include "collective/recursive_doubling_all_reduce.hpp"
#include "collective/ring_all_gather.hpp"
#include "collective/ring_all_reduce.hpp"
#include "collective/ring_reduce_scatter.hpp"
#include "support.hpp"

using namespace ccsim::collective;

// Every closed form is derived from its schedule: it must equal the critical path of the
// schedule's steps under the same model, for counts that split evenly (the closed forms use
// n/p; chunk() rounds).

namespace {

// Divisible by 1..10, 12 and 16, and each chunk of it by the ratio below.
constexpr std::uint64_t kCount = 5040 * 16;

ccsim::compress::CompressorCost codec() {
  ccsim::compress::CompressorCost c;
  c.ratio = 4;
  c.compress_t0_s = 3e-6;
  c.compress_Bps = 8e9;
  c.decompress_t0_s = 2e-6;
  c.decompress_Bps = 16e9;
  c.add_t0_s = 1e-6;
  c.add_Bps = 40e9;
  return c;
}

void check(const Schedule& schedule, const CostParams& params, const LinkModel& link = {}) {
  INFO(schedule.name() << " p=" << schedule.size());
  CHECK(critical_path_s(schedule, params, link) == Approx(schedule.cost(params)).epsilon(1e-12));
}

}  // namespace

TEST_CASE("closed forms equal the critical path of the schedules", "[collective][closed-form]") {
  const CostParams params = cost_params(1.5e-6, 0.4e-9, 0.07e-9, codec());
  for (int p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16}) {
    check(RingAllReduce(p, kCount, 4), params);
    check(RecursiveDoublingAllReduce(p, kCount, 4), params);
    check(RabenseifnerAllReduce(p, kCount, 4), params);
    check(BinomialTreeAllReduce(p, kCount, 4), params);
    check(BinomialBroadcast(p, kCount, 4, p / 2), params);
    check(RingAllGather(p, kCount, 4), params);
    check(RingReduceScatter(p, kCount, 4), params);
    check(PairwiseAllToAll(p, kCount, 4), params);
    check(CompressedRingAllReduce(p, kCount, 4), params);
    check(HomomorphicRingAllReduce(p, kCount, 4), params);
    check(CompressedAllGatherAllReduce(p, kCount, 4), params);
  }
}

TEST_CASE("hierarchical closed form equals its critical path on two link tiers", "[collective][closed-form]") {
  CostParams params = cost_params(5e-6, 1e-9, 0.07e-9);
  params.intra_alpha_s = 0.7e-6;
  params.intra_beta_s_per_byte = 0.05e-9;
  for (auto [p, g] : {std::pair{8, 4}, {8, 2}, {12, 3}, {12, 4}, {16, 8}, {6, 1}, {6, 6}, {9, 3}}) {
    std::vector<int> nodes;
    for (int r = 0; r < p; ++r) nodes.push_back(r / g);
    auto link = [&](int from, int to) {
      return nodes[static_cast<std::size_t>(from)] == nodes[static_cast<std::size_t>(to)]
                 ? LinkCost{params.intra_alpha(), params.intra_beta()}
                 : LinkCost{params.alpha_s, params.beta_s_per_byte};
    };
    check(HierarchicalAllReduce(p, kCount, 4, nodes), params, link);
  }
}

TEST_CASE("critical path: a transfer starts when both sides have posted", "[collective][closed-form]") {
  using testing::ListedSchedule;
  // Rank 0 compresses 400 bytes (3 us + 50 ns) before it sends; rank 1 posts its receive at 0
  // and waits. Transfer: 1.5 us + 100 wire bytes * 0.4 ns. Then a homomorphic add of 400 bytes.
  const CostParams params = cost_params(1.5e-6, 0.4e-9, 0.07e-9, codec());
  ListedSchedule schedule(100, {{compress_block({0, 100}), send_only(1, {0, 100}, true)},
                                {recv_only(0, {0, 100}, RecvMode::kReduce, true)}});
  const double compress_s = 3e-6 + 400 / 8e9;
  const double transfer_s = 1.5e-6 + 100 * 0.4e-9;
  const double add_s = 1e-6 + 400 / 40e9;
  CHECK(critical_path_s(schedule, params) == Approx(compress_s + transfer_s + add_s).epsilon(1e-12));
}

TEST_CASE("critical path: a schedule that deadlocks is named", "[collective][closed-form]") {
  testing::ListedSchedule schedule(4,
                                   {{recv_only(1, {0, 4}, RecvMode::kCopy)}, {recv_only(0, {0, 4}, RecvMode::kCopy)}});
  CHECK_THROWS_WITH(critical_path_s(schedule, cost_params(1, 1, 1)),
                    "ring: deadlock, rank 0 waits at step 0 for rank 1");
}

TEST_CASE("critical path: sends wait for their receivers (rendezvous)", "[collective][closed-form]") {
  testing::ListedSchedule schedule(4, {{send_only(1, {0, 4}), recv_only(1, {0, 4}, RecvMode::kCopy)},
                                       {send_only(0, {0, 4}), recv_only(0, {0, 4}, RecvMode::kCopy)}});
  CHECK_THROWS_WITH(critical_path_s(schedule, cost_params(1, 1, 1)),
                    "ring: deadlock, rank 0 waits at step 0 for rank 1");
  testing::Buffers buffers(2, std::vector<double>(4, 1.0));
  CHECK_NOTHROW(execute_in_memory(schedule, buffers));  // eager sends do not wait
}

TEST_CASE("a size-dependent message cost gives the critical path by message", "[collective][critical-path]") {
  const RingAllReduce ring(4, kCount, 4);
  const CostParams params = cost_params(2e-6, 1e-9, 3e-10);
  // alpha + n beta through the message cost is the link model's result, bit for bit.
  const MessageCost affine = [&](int, int, std::uint64_t n) {
    return params.alpha_s + static_cast<double>(n) * params.beta_s_per_byte;
  };
  CHECK(critical_path_by_message_s(ring, params, affine) == critical_path_s(ring, params));
  // A step function of size: 2 (p - 1) messages of n / p bytes each, then (p - 1) reductions of n / p.
  const std::uint64_t chunk = kCount * 4 / 4;
  const MessageCost step = [](int, int, std::uint64_t n) { return n >= 65536 ? 7e-6 : 1e-6; };
  CHECK(critical_path_by_message_s(ring, params, step) ==
        Approx(6 * (chunk >= 65536 ? 7e-6 : 1e-6) + 3 * static_cast<double>(chunk) * 3e-10).epsilon(1e-12));
}

TEST_CASE("a uniform ring's walk of one rank gives every rank's end, bit for bit", "[collective][critical-path]") {
  const CostParams params = cost_params(0, 0, 0.07e-9, codec());
  // A size-dependent cost of the same value on every link: the lockstep holds.
  const MessageCost message = [](int, int, std::uint64_t n) {
    return 1.5e-6 + (n > 4096 ? 3e-6 : 0) + 0.4e-9 * static_cast<double>(n);
  };
  int claimed = 0;
  for (int p : {1, 2, 3, 4, 5, 7, 8, 12, 16}) {
    for (std::uint64_t count : {kCount, kCount + 1}) {
      std::vector<std::unique_ptr<Schedule>> schedules;
      schedules.push_back(std::make_unique<RingAllReduce>(p, count, 4));
      schedules.push_back(std::make_unique<RingAllGather>(p, count, 4));
      schedules.push_back(std::make_unique<RingReduceScatter>(p, count, 4));
      schedules.push_back(std::make_unique<CompressedRingAllReduce>(p, count, 4));
      schedules.push_back(std::make_unique<HomomorphicRingAllReduce>(p, count, 4));
      schedules.push_back(std::make_unique<CompressedAllGatherAllReduce>(p, count, 4));
      schedules.push_back(std::make_unique<RecursiveDoublingAllReduce>(p, count, 4));
      schedules.push_back(std::make_unique<PairwiseAllToAll>(p, count, 4));
      for (const auto& schedule : schedules) {
        INFO(schedule->name() << " p=" << p << " count=" << count);
        if (!schedule->uniform_ring()) {
          CHECK_THROWS_AS(uniform_ring_ends_s(*schedule, params, message, 0.0), std::logic_error);
          continue;
        }
        ++claimed;
        // The claim, step by step: rank r's steps are rank 0's shifted by r, of the same
        // sizes, and every exchange goes right and comes from the left.
        const std::vector<Step> zero = schedule->steps(0);
        for (int r = 0; r < p; ++r) {
          const std::vector<Step> steps = schedule->steps(r);
          REQUIRE(steps.size() == zero.size());
          for (std::size_t i = 0; i < steps.size(); ++i) {
            CHECK(steps[i].kind == zero[i].kind);
            CHECK(steps[i].send.count == zero[i].send.count);
            CHECK(steps[i].recv.count == zero[i].recv.count);
            CHECK(steps[i].local.count == zero[i].local.count);
            CHECK(steps[i].mode == zero[i].mode);
            CHECK(steps[i].compressed == zero[i].compressed);
            if (steps[i].kind == StepKind::kExchange) {
              CHECK(steps[i].send_peer == (r + 1) % p);
              CHECK(steps[i].recv_peer == (r + p - 1) % p);
            }
          }
        }
        // The numbers: those of the walk of every rank, from a common start.
        const std::vector<double> starts(static_cast<std::size_t>(p), 0.25);
        CHECK(uniform_ring_ends_s(*schedule, params, message, 0.25) ==
              critical_path_ends_s(*schedule, params, message, starts));
      }
    }
  }
  // The five rings claim it with equal chunks (count divisible by p), the compressed all-gather
  // always: kCount is divisible by every p here, kCount + 1 = 80,641 by none but 1.
  CHECK(claimed == 9 * 6 + 6 + 8);
}

TEST_CASE("the critical path's waits are the parts of each exchange step covered by neither of its transfers",
          "[collective][critical_path]") {
  const CostParams params = cost_params(0, 0, 0);
  const MessageCost second = [](int, int, std::uint64_t) { return 1.0; };
  SECTION("a rank that arrives first waits for its peer, from its start") {
    const RingAllReduce ring(2, 4, 4);
    const double starts[] = {0.0, 0.5};
    const CriticalPathTimes t = critical_path_times(ring, params, second, starts);
    CHECK(t.ends_s == critical_path_ends_s(ring, params, second, starts));
    REQUIRE(t.waits.size() == 2);
    REQUIRE(t.waits[0].size() == 1);  // both transfers of the first step start at 0.5
    CHECK(t.waits[0][0].from_s == 0.0);
    CHECK(t.waits[0][0].to_s == 0.5);
    CHECK(t.waits[1].empty());
  }
  SECTION("a gap between the step's send and its receive is a wait") {
    // Rank 0 sends to rank 1 (there at 0: 0..1) and receives from rank 2 (there at 2: 2..3).
    const RingAllReduce ring(3, 6, 4);
    const double starts[] = {0.0, 0.0, 2.0};
    const CriticalPathTimes t = critical_path_times(ring, params, second, starts);
    REQUIRE(!t.waits[0].empty());
    CHECK(t.waits[0][0].from_s == 1.0);
    CHECK(t.waits[0][0].to_s == 2.0);
  }
}
