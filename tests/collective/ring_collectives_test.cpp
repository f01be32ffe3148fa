#include <catch2/catch.hpp>

#include "collective/pairwise_all_to_all.hpp"
#include "collective/ring_all_gather.hpp"
#include "collective/ring_reduce_scatter.hpp"
#include "support.hpp"

using namespace ccsim::collective;
using namespace ccsim::collective::testing;

// all_gather, reduce_scatter and all_to_all: the building blocks of the ring family.

TEST_CASE("ring all_gather brings every rank's chunk to every rank", "[collective][all_gather]") {
  for (int p : kSizes) {
    for (std::uint64_t count : counts_for(p)) {
      RingAllGather gather(p, count, 4);
      // Rank r's contribution is its chunk r; the rest of its buffer is garbage to overwrite.
      Buffers buffers(static_cast<std::size_t>(p), std::vector<double>(count, -1.0));
      for (int r = 0; r < p; ++r) {
        const Block mine = gather.chunk(r, p);
        for (std::uint64_t i = mine.offset; i < mine.offset + mine.count; ++i) {
          buffers[static_cast<std::size_t>(r)][i] = static_cast<double>(i);
        }
      }
      execute_in_memory(gather, buffers);
      for (int r = 0; r < p; ++r) {
        for (std::uint64_t i = 0; i < count; ++i) {
          INFO("p=" << p << " count=" << count << " rank=" << r << " i=" << i);
          REQUIRE(buffers[static_cast<std::size_t>(r)][i] == static_cast<double>(i));
        }
      }
    }
  }
}

TEST_CASE("ring reduce_scatter leaves rank i with reduced chunk i", "[collective][reduce_scatter]") {
  for (int p : kSizes) {
    for (std::uint64_t count : counts_for(p)) {
      RingReduceScatter scatter(p, count, 4);
      Buffers buffers = distinct_inputs(p, count);
      execute_in_memory(scatter, buffers);
      for (int r = 0; r < p; ++r) {
        const Block mine = scatter.chunk(r, p);
        for (std::uint64_t i = mine.offset; i < mine.offset + mine.count; ++i) {
          INFO("p=" << p << " count=" << count << " rank=" << r << " i=" << i);
          REQUIRE(buffers[static_cast<std::size_t>(r)][i] == distinct_sum(p, i));
        }
      }
    }
  }
}

TEST_CASE("pairwise all_to_all delivers slot s of rank r to rank r + s", "[collective][all_to_all]") {
  for (int p : kSizes) {
    for (std::uint64_t count : counts_for(p)) {
      PairwiseAllToAll exchange(p, count, 4);
      // Element i (in slot s) of rank r: the data for rank r + s, tagged with its sender.
      Buffers buffers(static_cast<std::size_t>(p), std::vector<double>(count));
      for (int r = 0; r < p; ++r) {
        for (std::uint64_t i = 0; i < count; ++i) buffers[static_cast<std::size_t>(r)][i] = r * 1000.0 + i;
      }
      execute_in_memory(exchange, buffers);
      // After: slot s of rank r holds the data from rank r - s, at the same place in the slot.
      for (int r = 0; r < p; ++r) {
        for (int s = 0; s < p; ++s) {
          const Block slot = exchange.chunk(s, p);
          const int from = ((r - s) % p + p) % p;
          for (std::uint64_t i = slot.offset; i < slot.offset + slot.count; ++i) {
            INFO("p=" << p << " count=" << count << " rank=" << r << " slot=" << s << " i=" << i);
            REQUIRE(buffers[static_cast<std::size_t>(r)][i] == from * 1000.0 + static_cast<double>(i));
          }
        }
      }
    }
  }
}

TEST_CASE("ring all_gather, reduce_scatter and pairwise all_to_all move (p-1)/p of the buffer",
          "[collective][all_gather][reduce_scatter][all_to_all]") {
  const std::uint64_t count = 720;
  const std::uint64_t n = count * 2;
  for (int p : {2, 3, 4, 5, 6, 8, 9, 16}) {
    if (count % static_cast<std::uint64_t>(p) != 0) continue;
    Buffers buffers = distinct_inputs(p, count);
    ExecutionStats gather = execute_in_memory(RingAllGather(p, count, 2), buffers);
    ExecutionStats scatter = execute_in_memory(RingReduceScatter(p, count, 2), buffers);
    ExecutionStats all_to_all = execute_in_memory(PairwiseAllToAll(p, count, 2), buffers);
    for (int r = 0; r < p; ++r) {
      INFO("p=" << p << " rank=" << r);
      const auto ur = static_cast<std::size_t>(r);
      for (const ExecutionStats* stats : {&gather, &scatter, &all_to_all}) {
        CHECK(stats->bytes_sent[ur] == share(n, p - 1, p));
        CHECK(stats->bytes_received[ur] == share(n, p - 1, p));
      }
      CHECK(gather.bytes_reduced[ur] == 0);
      CHECK(scatter.bytes_reduced[ur] == share(n, p - 1, p));
    }
    for (const ExecutionStats* stats : {&gather, &scatter, &all_to_all}) {
      CHECK(stats->messages == static_cast<std::size_t>(p * (p - 1)));
    }
  }
}

TEST_CASE("ring all_gather, reduce_scatter and pairwise all_to_all closed forms", "[collective][all_gather]") {
  const CostParams params = cost_params(2e-6, 1e-10, 2e-11);
  for (int p : {1, 2, 3, 16, 1024}) {
    const double n = 1 << 20;
    INFO("p=" << p);
    CHECK(RingAllGather(p, 1 << 18, 4).cost(params) ==
          Approx((p - 1) * params.alpha_s + (p - 1.0) / p * n * params.beta_s_per_byte).epsilon(1e-12));
    CHECK(RingReduceScatter(p, 1 << 18, 4).cost(params) ==
          Approx((p - 1) * params.alpha_s + (p - 1.0) / p * n * (params.beta_s_per_byte + params.gamma_s_per_byte))
              .epsilon(1e-12));
    CHECK(PairwiseAllToAll(p, 1 << 18, 4).cost(params) ==
          Approx((p - 1) * (params.alpha_s + n / p * params.beta_s_per_byte)).epsilon(1e-12));
  }
  // By hand: p = 4, n = 1 MB, alpha = 1 us, beta = 1 ns/B, gamma = 0.1 ns/B.
  const CostParams hand = cost_params(1e-6, 1e-9, 1e-10);
  // all_gather: 3 us + 0.75 ms = 0.753 ms.
  CHECK(RingAllGather(4, 250000, 4).cost(hand) == Approx(0.753e-3).epsilon(1e-12));
  // reduce_scatter: 3 us + 0.75 ms + 0.075 ms = 0.828 ms.
  CHECK(RingReduceScatter(4, 250000, 4).cost(hand) == Approx(0.828e-3).epsilon(1e-12));
  // all_to_all: 3 (1 us + 0.25 ms) = 0.753 ms.
  CHECK(PairwiseAllToAll(4, 250000, 4).cost(hand) == Approx(0.753e-3).epsilon(1e-12));
}
