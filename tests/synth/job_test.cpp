// A job synthesised for a machine (synth/job.hpp): the checks of `trace synth` against the
// accelerators and memory of the platforms of platforms/, in the order it makes them.
#include <string>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "core/input_error.hpp"
#include "synth/job.hpp"
#include "topology/platform.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;

namespace {

synth::Machine machine_of(const std::string& preset) {
  const topology::Platform p = topology::read_platform(CCSIM_SOURCE_DIR "/platforms/" + preset + ".json");
  const topology::AcceleratorSpec& acc = p.network.accelerator();
  return {p.name, p.network.node_count(), p.network.accelerators_per_node(), acc.cpu_core, acc.memory_bytes, acc.model};
}

synth::Parallelism split(int tp, int pp, int dp) {
  synth::Parallelism par;
  par.tp = tp;
  par.pp = pp;
  par.dp = dp;
  return par;
}

}  // namespace

TEST_CASE("a job that fits its machine is synthesised for the platform as named", "[synth]") {
  const synth::Machine h100 = machine_of("dgx-h100-superpod");
  const synth::Job job = synth::synthesize_job(synth::load_model("llama2-7b"), split(8, 1, 2), h100,
                                               "platforms/dgx-h100-superpod.json", false);
  CHECK(job.trace.world_size == 16);
  CHECK(job.trace.platform == "platforms/dgx-h100-superpod.json");
  REQUIRE(job.memory);
  CHECK(job.memory->fits);
  CHECK(job.memory->memory.total() < h100.memory_bytes);
}

TEST_CASE("a job of more ranks than accelerators is refused before its memory is checked", "[synth]") {
  const synth::Machine h100 = machine_of("dgx-h100-superpod");  // 128 nodes of 8
  CHECK_THROWS_WITH(synth::synthesize_job(synth::load_model("gpt3-175b"), split(8, 1, 200), h100, "x", false),
                    "command line: field '--dp': TP 8 x PP 1 x DP 200 = 1600 ranks, but platform "
                    "\"dgx-h100-superpod\" has 1024 accelerators (128 nodes x 8), one rank each; --set nodes=200 "
                    "gives it enough");
}

TEST_CASE("a job beyond an accelerator's memory is refused unless allowed, and then says so", "[synth]") {
  const synth::Machine h100 = machine_of("dgx-h100-superpod");
  const synth::ModelSpec gpt3 = synth::load_model("gpt3-175b");
  // 175 B parameters of mixed-precision Adam states, 16 bytes each, on one 80 GiB accelerator.
  CHECK_THROWS_WITH(synth::synthesize_job(gpt3, split(1, 1, 1), h100, "x", false),
                    Contains("(--allow-oversize writes the trace anyway)"));
  const synth::Job job = synth::synthesize_job(gpt3, split(1, 1, 1), h100, "x", true);
  REQUIRE(job.memory);
  CHECK_FALSE(job.memory->fits);
  CHECK(job.memory->memory.model_states > 16 * 175e9 * 0.99);
  CHECK(job.trace.world_size == 1);
}

TEST_CASE("CPU ranks may outnumber the cores, and a machine without memory is not checked", "[synth]") {
  const synth::Machine local = machine_of("local");  // 1 node of 2 cores, no memory given
  REQUIRE(local.cpu_core);
  const synth::Job job = synth::synthesize_job(synth::load_model("small-gpt"), split(2, 2, 2), local, "local", false);
  CHECK(job.trace.world_size == 8);
  CHECK_FALSE(job.memory);
}

TEST_CASE("a split that does not fit the model is refused first", "[synth]") {
  const synth::Machine h100 = machine_of("dgx-h100-superpod");
  CHECK_THROWS_AS(synth::synthesize_job(synth::load_model("llama2-7b"), split(3, 1, 1), h100, "x", false), InputError);
}

TEST_CASE("what trace synth says of a job: the split, the fullest stage's memory, messages and operators", "[synth]") {
  const synth::Machine h100 = machine_of("dgx-h100-superpod");
  const synth::ModelSpec model = synth::load_model("llama2-7b");
  const synth::Parallelism par = split(8, 1, 2);
  const synth::Job job = synth::synthesize_job(model, par, h100, "dgx-h100-superpod", false);
  const std::string text = synth::describe_job(model, par, job, "dgx-h100-superpod");
  CHECK_THAT(text, Catch::Matchers::StartsWith(
                       fmt::format("trace synth: llama2-7b ({:.3f} B parameters), 16 ranks = TP 8 x PP 1 x DP 2 on "
                                   "dgx-h100-superpod\n  per accelerator (stage 0 of 32 layers, the fullest): ",
                                   model.total_params() / 1e9)));
  CHECK_THAT(text, Contains("(mixed-precision Adam, ZeRO 0)"));
  CHECK_THAT(text, Contains("no recomputation"));
  CHECK_THAT(text, Contains("\n  messages: TP collective "));
  CHECK_THAT(
      text, Contains(fmt::format("\n  {} operators ({} in {} programs shared by identical ranks)", job.trace.op_count(),
                                 job.trace.program_op_count(), job.trace.programs.size())));
  CHECK(text.find("layers per stage") == std::string::npos);  // one stage holds all 32 layers
  CHECK(synth::memory_note(job, h100) == fmt::format("  fits the accelerator: {:.2f} GiB of {:.2f} GiB ({})\n",
                                                     job.memory->memory.total() / (1024.0 * 1024 * 1024),
                                                     h100.memory_bytes / (1024.0 * 1024 * 1024), h100.accelerator));
}

TEST_CASE("the memory note of a machine without memory, and of a job allowed not to fit", "[synth]") {
  const synth::Machine local = machine_of("local");
  const synth::Job small = synth::synthesize_job(synth::load_model("small-gpt"), split(2, 2, 2), local, "local", false);
  CHECK(synth::memory_note(small, local) ==
        "  note: platform \"local\" gives no accelerator memory (memory_bytes): the memory check is skipped\n");
  const synth::Machine h100 = machine_of("dgx-h100-superpod");
  const synth::Job big = synth::synthesize_job(synth::load_model("gpt3-175b"), split(1, 1, 1), h100, "x", true);
  CHECK(synth::memory_note(big, h100) == "  warning: " + big.memory->message + "; written anyway (--allow-oversize)\n");
}
