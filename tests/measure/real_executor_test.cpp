#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "collective/error_model.hpp"
#include "collective/registry.hpp"
#include "collective/ring_all_gather.hpp"
#include "collective/step_driver.hpp"
#include "compress/codec.hpp"
#include "measure/real_executor.hpp"
#include "thread_transport.hpp"

namespace ccsim::measure {
namespace {

using collective::Collective;

struct Run {
  std::vector<std::vector<float>> buffers;
  std::vector<RealStats> stats;
};

/// Runs `request` with one thread per rank over a ThreadNetwork; rank r's input is
/// input(r, i).
template <typename Input>
Run run_threads(const collective::Request& request, Input input, const compress::Codec* codec = nullptr,
                bool feedback = false, int calls = 1) {
  const auto schedule = collective::make_schedule(request);
  testing::ThreadNetwork network(request.size);
  Run run;
  run.buffers.assign(static_cast<std::size_t>(request.size), std::vector<float>(request.count));
  run.stats.resize(static_cast<std::size_t>(request.size));
  std::vector<std::thread> threads;
  std::vector<std::string> errors(static_cast<std::size_t>(request.size));
  for (int r = 0; r < request.size; ++r) {
    auto& buffer = run.buffers[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = input(r, i);
    threads.emplace_back([&, r] {
      try {
        auto transport = network.endpoint(r);
        std::vector<float> residual(feedback ? request.count : 0, 0.0f);
        RealExecutor executor(*transport, run.buffers[static_cast<std::size_t>(r)], codec, residual);
        for (int call = 0; call < calls; ++call) {
          // As ccsim measure repeats a series: one executor, the input restored, a new call.
          for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = input(r, i);
          std::fill(residual.begin(), residual.end(), 0.0f);
          executor.start_call();
          collective::run_rank(*schedule, r, executor);
          if (call == 0) {
            run.stats[static_cast<std::size_t>(r)] = executor.stats();
          } else if (executor.stats().bytes_sent != run.stats[static_cast<std::size_t>(r)].bytes_sent ||
                     executor.stats().messages != run.stats[static_cast<std::size_t>(r)].messages) {
            throw std::runtime_error("a repeated call sent other bytes or messages than the first");
          }
        }
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(r)] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) REQUIRE(e == "");
  return run;
}

collective::Request request(Collective op, std::string algorithm, int p, std::uint64_t count) {
  collective::Request r;
  r.op = op;
  r.algorithm = std::move(algorithm);
  r.size = p;
  r.count = count;
  r.element_bytes = 4;
  return r;
}

/// Small integers: every summation order gives the exact sum.
float exact_input(int rank, std::size_t i) {
  return static_cast<float>(static_cast<int>((i * 7 + rank * 13) % 61) - 30);
}

}  // namespace

TEST_CASE("real executor: plain all_reduce schedules give the exact sum on every rank", "[measure]") {
  for (const char* algorithm : {"ring", "recursive-doubling", "rabenseifner", "binomial-tree"}) {
    for (int p : {1, 2, 3, 4, 5, 8}) {
      for (std::uint64_t count : {8ull, 13ull, 1000ull, 4099ull}) {
        if (std::string_view(algorithm) == "rabenseifner" && count < static_cast<std::uint64_t>(p)) continue;
        INFO(algorithm << " p=" << p << " count=" << count);
        Run run = run_threads(request(Collective::kAllReduce, algorithm, p, count), exact_input);
        for (int r = 0; r < p; ++r) {
          for (std::size_t i = 0; i < count; ++i) {
            float want = 0;
            for (int q = 0; q < p; ++q) want += exact_input(q, i);
            REQUIRE(run.buffers[static_cast<std::size_t>(r)][i] == want);
          }
        }
      }
    }
  }
}

TEST_CASE("real executor: ring all_gather and reduce_scatter", "[measure]") {
  const int p = 4;
  const std::uint64_t count = 1003;
  collective::RingAllGather shape(p, count, 4);
  Run gathered = run_threads(request(Collective::kAllGather, "ring", p, count), [&](int r, std::size_t i) {
    const auto own = shape.chunk(r, p);
    return i >= own.offset && i < own.offset + own.count ? exact_input(r, i) : -999.0f;
  });
  Run scattered = run_threads(request(Collective::kReduceScatter, "ring", p, count), exact_input);
  for (int r = 0; r < p; ++r) {
    for (std::size_t i = 0; i < count; ++i) {
      int owner = 0;
      while (!(i < shape.chunk(owner, p).offset + shape.chunk(owner, p).count)) ++owner;
      REQUIRE(gathered.buffers[static_cast<std::size_t>(r)][i] == exact_input(owner, i));
    }
    const auto own = shape.chunk(r, p);
    for (std::size_t i = own.offset; i < own.offset + own.count; ++i) {
      float want = 0;
      for (int q = 0; q < p; ++q) want += exact_input(q, i);
      REQUIRE(scattered.buffers[static_cast<std::size_t>(r)][i] == want);
    }
  }
}

TEST_CASE("real executor: compressed all_reduce stays within the error model's bound", "[measure]") {
  auto gradient = [](int rank, std::size_t i) {
    return static_cast<float>(1e-3 * std::sin(0.37 * static_cast<double>(i) + 1.3 * rank) +
                              2e-4 * std::cos(0.011 * static_cast<double>(i * (rank + 1))));
  };
  const double eb = 1e-5;
  const auto codec = compress::make_codec("ccsz:abs=1e-5");
  for (const char* algorithm : {"compressed-ring", "homomorphic-ring"}) {
    for (int p : {2, 3, 4}) {
      const std::uint64_t count = 5000;
      auto req = request(Collective::kAllReduce, algorithm, p, count);
      req.compression = std::string_view(algorithm) == "homomorphic-ring" ? collective::Compression::kHomomorphic
                                                                          : collective::Compression::kErrorBounded;
      INFO(algorithm << " p=" << p);
      Run run = run_threads(req, gradient, codec.get());
      const double bound = collective::all_reduce_error(algorithm, p).worst * eb;
      double worst = 0;
      for (int r = 0; r < p; ++r) {
        for (std::size_t i = 0; i < count; ++i) {
          double exact = 0;
          for (int q = 0; q < p; ++q) exact += gradient(q, i);
          worst = std::max(worst, std::abs(run.buffers[static_cast<std::size_t>(r)][i] - exact));
        }
      }
      CHECK(worst <= bound * 1.001 + 1e-9);
      CHECK(worst > 0);  // it really went through the lossy codec
      // Fewer bytes travelled than the plain ring would send.
      CHECK(run.stats[0].bytes_sent < run.stats[0].raw_bytes_sent / 2);
    }
  }
}

TEST_CASE("real executor: compress-once all-gather with int8 and error feedback", "[measure]") {
  const auto codec = compress::make_codec("int8");
  const int p = 3;
  const std::uint64_t count = 2048;
  auto req = request(Collective::kAllReduce, "compressed-allgather", p, count);
  req.compression = collective::Compression::kNonSummable;
  auto input = [](int rank, std::size_t i) {
    return static_cast<float>(std::sin(0.1 * static_cast<double>(i) + rank));
  };
  Run run = run_threads(req, input, codec.get(), true);
  for (std::size_t i = 0; i < count; ++i) {
    double exact = 0;
    for (int q = 0; q < p; ++q) exact += input(q, i);
    // int8 with a per-block scale max|x| / 127: each of the p - 1 others' inputs is off by at
    // most half a step, 1 / 254 of its block's magnitude (<= 1 here).
    REQUIRE(std::abs(run.buffers[0][i] - exact) <= (p - 1) / 254.0 + 1e-6);
  }
  CHECK(run.stats[0].bytes_sent * 3 < run.stats[0].raw_bytes_sent);
}

}  // namespace ccsim::measure

namespace ccsim::measure {

TEST_CASE("real executor: one executor serves repeated calls with the same results", "[measure]") {
  auto gradient = [](int rank, std::size_t i) {
    return static_cast<float>(1e-3 * std::sin(0.37 * static_cast<double>(i) + 1.3 * rank));
  };
  const auto codec = compress::make_codec("ccsz:abs=1e-5");
  for (const char* algorithm : {"ring", "compressed-ring", "homomorphic-ring"}) {
    INFO(algorithm);
    auto req = request(Collective::kAllReduce, algorithm, 3, 4000);
    const std::string_view a(algorithm);
    req.compression = a == "ring"               ? collective::Compression::kNone
                      : a == "homomorphic-ring" ? collective::Compression::kHomomorphic
                                                : collective::Compression::kErrorBounded;
    const compress::Codec* c = a == "ring" ? nullptr : codec.get();
    const Run once = run_threads(req, gradient, c);
    const Run thrice = run_threads(req, gradient, c, false, 3);
    CHECK(thrice.buffers == once.buffers);  // deterministic codec: bit for bit
    CHECK(thrice.stats[0].bytes_sent == once.stats[0].bytes_sent);
  }
}

TEST_CASE("real executor: a compressed block of an earlier call is not used again", "[measure]") {
  testing::ThreadNetwork network(1);
  auto transport = network.endpoint(0);
  std::vector<float> buffer(256, 0.5f);
  const auto codec = compress::make_codec("ccsz:abs=1e-3");
  RealExecutor executor(*transport, buffer, codec.get());
  collective::Step step;
  step.kind = collective::StepKind::kCompress;
  step.local = {0, 256};
  executor.start_call();
  executor.compress(0, step);
  step.kind = collective::StepKind::kDecompress;
  CHECK_NOTHROW(executor.decompress(0, step));
  executor.start_call();
  CHECK_THROWS_WITH(executor.decompress(0, step), Catch::Contains("never compressed or received"));
}

}  // namespace ccsim::measure
