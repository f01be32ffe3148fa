#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "synth/pipeline_order.hpp"

using namespace ccsim;
using synth::Parallelism;
using synth::PipelineMessage;

namespace {

/// The steps of a schedule as words: F0 (forward of micro-batch 0), B1.0 (backward of chunk 1,
/// micro-batch 0), "send act0" (a lone transfer), [send act1, recv grad0] (one call), "post 3
/// [send act1]" (a call posted without its wait, handle 3) and "wait 3".
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
  int post(const std::vector<PipelineMessage>& messages) override {
    if (messages.empty()) return -1;
    std::vector<std::string> words;
    for (const PipelineMessage& m : messages) words.push_back(message(m));
    steps.push_back(fmt::format("post {} [{}]", ++posts, fmt::join(words, ", ")));
    return posts;
  }
  void wait(int handle) override {
    if (handle >= 0) steps.push_back(fmt::format("wait {}", handle));
  }
  int posts = 0;

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

TEST_CASE("interleaved with overlapped messages: Megatron's calls posted, waited a step later", "[synth]") {
  // 2 stages x 2 chunks, M = pp = 2: all 4 forward steps are warm-up (chunks 0, 0, 1, 1), then
  // the backwards (chunks 1, 1, 0, 0). Stage 0's chunk 0 is the first virtual stage (nothing
  // received forward, nothing sent backward); its chunk 1 is virtual stage 2 of 4. Each
  // warm-up step posts its send with the receive for the next step (none for chunk 0 on the
  // first stage, none after the last step), and the next forward waits for them
  // (fwd_wait_handles); the cool-down's calls block (send_backward_recv_backward), after the
  // receive of chunk 1's first gradient (every step was a warm-up one).
  Parallelism par;
  par.pp = 2;
  par.micro_batches = 2;
  par.schedule = synth::PipelineSchedule::kInterleaved;
  par.virtual_stages = 2;
  par.overlap_p2p = true;
  CHECK(order(par, 0) == std::vector<std::string>{"F0",
                                                  "post 1 [send act0]",
                                                  "wait 1",
                                                  "F1",
                                                  "post 2 [recv act1.0, send act1]",
                                                  "wait 2",
                                                  "F1.0",
                                                  "post 3 [recv act1.1, send act1.0]",
                                                  "wait 3",
                                                  "F1.1",
                                                  "post 4 [send act1.1]",
                                                  "[recv grad1.0]",
                                                  "B1.0",
                                                  "[recv grad1.1, send grad1.0]",
                                                  "B1.1",
                                                  "[recv grad0, send grad1.1]",
                                                  "B0",
                                                  "[recv grad1]",
                                                  "B1",
                                                  "[]"});
  // With steady-state steps (M = 4): each forward waits for the previous forward's call, each
  // backward for the previous backward's; the warm-up's last step also posts the receive of
  // the first gradient, and the cool-down starts by waiting for the last backward's call.
  par.micro_batches = 4;
  const std::vector<std::string> stage1 = order(par, 1);
  // Stage 1 (the last; chunks 0 and 1 are virtual stages 1 and 3): after recv_forward, 2
  // warm-up steps (the warm-up's gradient receive is none: the last stage is ahead), then
  // each steady step: wait, forward, post, wait, backward, post. Chunk 1 sends no activations
  // (the last virtual stage), and the first backward's call receives nothing (recv_next).
  CHECK(std::vector<std::string>(stage1.begin(), stage1.begin() + 14) ==
        std::vector<std::string>{"[recv act0]", "F0", "post 1 [recv act1, send act0]", "wait 1", "F1",
                                 "post 2 [recv act1.0, send act1]", "wait 2", "F1.0", "post 3 [recv act1.1]", "B1.0",
                                 "post 4 [send grad1.0]", "wait 3", "F1.1", "post 5 [recv act2]"});
  // Megatron's blocking cool-down: no post after the last backward call's wait.
  const auto last_wait = std::find(stage1.rbegin(), stage1.rend(), "wait 13");
  REQUIRE(last_wait != stage1.rend());
  CHECK(std::none_of(stage1.rbegin(), last_wait, [](const std::string& s) { return s.rfind("post", 0) == 0; }));
}
