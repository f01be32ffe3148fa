#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "synth/pipeline_order.hpp"

using namespace ccsim;
using synth::Parallelism;
using synth::PipelineMessage;

namespace {

/// The steps of a schedule as words: F0 (forward of micro-batch 0), B1.0 (backward of chunk 1,
/// micro-batch 0), "send act0" (a lone transfer), [send act1, recv grad0] (one call).
class Recorder : public synth::PipelineSteps {
 public:
  std::vector<std::string> steps;
  void forward(int chunk, int mb) override { steps.push_back(pass("F", chunk, mb)); }
  void backward(int chunk, int mb) override { steps.push_back(pass("B", chunk, mb)); }
  void transfer(const PipelineMessage& m) override { steps.push_back(message(m)); }
  void call(const std::vector<PipelineMessage>& messages) override {
    std::vector<std::string> words;
    for (const PipelineMessage& m : messages) words.push_back(message(m));
    steps.push_back(fmt::format("[{}]", fmt::join(words, ", ")));
  }

 private:
  static std::string pass(const char* what, int chunk, int mb) {
    return chunk == 0 ? fmt::format("{}{}", what, mb) : fmt::format("{}{}.{}", what, chunk, mb);
  }
  static std::string message(const PipelineMessage& m) {
    return fmt::format("{} {}{}{}", m.send ? "send" : "recv", m.forward ? "act" : "grad",
                       m.chunk == 0 ? "" : fmt::format("{}.", m.chunk), m.mb);
  }
};

std::vector<std::string> order(const Parallelism& par, int stage) {
  Recorder recorder;
  synth::pipeline_order(par, stage, recorder);
  return recorder.steps;
}

}  // namespace

TEST_CASE("1F1B: warm-up forwards, one forward one backward, then the remaining backwards", "[synth]") {
  // Megatron's forward_backward_pipelining_without_interleaving on 2 stages, 3 micro-batches:
  // the first stage warms up with pp - 1 = 1 forward; the last starts 1F1B at once.
  Parallelism par;
  par.pp = 2;
  par.micro_batches = 3;
  CHECK(order(par, 0) == std::vector<std::string>{"F0", "send act0", "F1", "[send act1, recv grad0]", "B0", "F2",
                                                  "[send act2, recv grad1]", "B1", "recv grad2", "B2"});
  CHECK(order(par, 1) == std::vector<std::string>{"recv act0", "F0", "B0", "[send grad0, recv act1]", "F1", "B1",
                                                  "[send grad1, recv act2]", "F2", "B2", "send grad2"});
}

TEST_CASE("GPipe: every forward, then every backward in reverse", "[synth]") {
  Parallelism par;
  par.pp = 2;
  par.micro_batches = 2;
  par.schedule = synth::PipelineSchedule::kGpipe;
  CHECK(order(par, 0) ==
        std::vector<std::string>{"F0", "send act0", "F1", "send act1", "recv grad1", "B1", "recv grad0", "B0"});
}

TEST_CASE("interleaved with overlapped messages: chunk steps in Megatron's order, each message alone", "[synth]") {
  // 2 stages x 2 chunks, M = pp = 2: all 4 forward steps are warm-up (chunks 0, 0, 1, 1), then
  // the backwards (chunks 1, 1, 0, 0). Stage 0's chunk 0 is the first virtual stage (nothing
  // received forward, nothing sent backward); its chunk 1 is virtual stage 2 of 4.
  Parallelism par;
  par.pp = 2;
  par.micro_batches = 2;
  par.schedule = synth::PipelineSchedule::kInterleaved;
  par.virtual_stages = 2;
  par.overlap_p2p = true;
  CHECK(order(par, 0) == std::vector<std::string>{"F0",           "send act0",    "F1",           "send act1",
                                                  "recv act1.0",  "F1.0",         "send act1.0",  "recv act1.1",
                                                  "F1.1",         "send act1.1",  "recv grad1.0", "B1.0",
                                                  "send grad1.0", "recv grad1.1", "B1.1",         "send grad1.1",
                                                  "recv grad0",   "B0",           "recv grad1",   "B1"});
}
