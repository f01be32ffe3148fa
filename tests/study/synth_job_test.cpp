// The jobs of a sweep's synth mode (study/synth_job.hpp): settings read as `trace synth`
// reads its options, dp and micro-batches derived, and refusals that say why, as trace synth
// refuses the same jobs.
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "study/synth_job.hpp"
#include "support/error_of.hpp"
#include "synth/job_options.hpp"
#include "synth/model_spec.hpp"
#include "topology/platform.hpp"

using namespace ccsim;

namespace {

std::string error_of(const std::vector<std::string>& settings) {
  return test::message_of([&] { study::parse_synth_job(settings); }, "(no error)");
}

topology::Platform preset(const std::string& name) {
  return topology::read_platform(topology::find_platform(name, {CCSIM_SOURCE_DIR "/platforms"}));
}

/// The platforms of platforms/, with --set overrides; nothing else.
study::DataLookup platforms() {
  study::DataLookup lookup;
  lookup.platform = [](const std::string& name, const topology::PlatformOverrides& overrides) {
    return topology::read_platform(topology::find_platform(name, {CCSIM_SOURCE_DIR "/platforms"}), overrides);
  };
  return lookup;
}

}  // namespace

TEST_CASE("synth settings read as trace synth's options") {
  const study::SynthJobSpec job = study::parse_synth_job(
      std::vector<std::string>{"model=gpt3-175b", "tp=8", "pp=16", "gpus=1024", "global-batch=1536",
                               "schedule=interleaved", "sp=true", "recompute=selective", "distributed-optimizer=true"});
  CHECK(job.model == "gpt3-175b");
  CHECK(job.par.tp == 8);
  CHECK(job.par.pp == 16);
  CHECK(job.gpus == 1024);
  CHECK(job.global_batch == 1536);
  CHECK(job.par.schedule == synth::PipelineSchedule::kInterleaved);
  CHECK(job.par.virtual_stages == 2);  // trace synth's default for the interleaved schedule
  CHECK(job.par.sp);
  CHECK(job.par.recompute == synth::Recompute::kSelective);
  CHECK(job.par.zero == 1);  // the distributed optimizer is ZeRO stage 1
  const study::SynthJobSpec plain = study::parse_synth_job(std::vector<std::string>{"model=llama2-7b"});
  CHECK(plain.par.virtual_stages == 1);
  CHECK(plain.par.schedule == synth::PipelineSchedule::k1F1B);
  CHECK_FALSE(plain.gpus);
}

TEST_CASE("the sweep's synth keys are trace synth's job options, but for the sweep's own") {
  for (std::string_view key : study::kSynthKeys) {
    CAPTURE(key);
    const bool own = key == "model" || key == "gpus" || key == "global-batch";
    CHECK((synth::find_job_option(key) != nullptr) != own);
  }
}

TEST_CASE("synth settings: errors name the key and what is valid") {
  CHECK(error_of({"model=m", "micro-batchs=4"}) ==
        "synth: field 'micro-batchs': unknown key; did you mean micro-batches? valid keys: model, gpus, tp, pp, dp, "
        "sp, global-batch, micro-batches, micro-batch-size, seq, schedule, virtual-stages, overlap-p2p, zero, "
        "distributed-optimizer, overlap-grad-reduce, recompute, first-stage-layers, last-stage-layers");
  CHECK(error_of({"model=m", "tp=0"}) == "synth: field 'tp': expected a whole number 1..1048576, got \"0\"");
  CHECK(error_of({"model=m", "zero=4"}) == "synth: field 'zero': expected a whole number 0..3, got \"4\"");
  CHECK(error_of({"model=m", "sp=yes"}) == "synth: field 'sp': expected one of true, false, got \"yes\"");
  CHECK(
      error_of({"model=m", "schedule=interleave"}) ==
      "synth: field 'schedule': expected one of gpipe, 1f1b, interleaved, got \"interleave\"; did you mean interleaved?");
  CHECK(error_of({"tp=2"}) == "synth: field 'model': missing: the model preset or file of the synthesized job");
  CHECK(error_of({"model=m", "tp=2", "tp=4"}) == "synth: field 'tp': given twice");
  CHECK(error_of({"model=m", "gpus=64", "dp=8"}) ==
        "synth: field 'gpus': derives dp (gpus / (tp x pp)): give gpus or dp, not both");
  CHECK(error_of({"model=m", "global-batch=64", "micro-batches=8"}) ==
        "synth: field 'global-batch': derives micro-batches (global-batch / (dp x micro-batch-size)): give one of "
        "the two");
  CHECK(error_of({"model=m", "zero=2", "distributed-optimizer=true"}) ==
        "synth: field 'distributed-optimizer': is ZeRO stage 1; zero = 2 asks for another stage");
}

TEST_CASE("a synth job resolves its dp and micro-batches, or says why it cannot run") {
  const topology::Platform h100 = preset("dgx-h100-superpod");  // 128 nodes of 8 H100 80GB
  const synth::ModelSpec gpt3 = synth::load_model("gpt3-175b");
  auto resolve = [&](const std::vector<std::string>& settings) {
    return study::resolve_synth_job(study::parse_synth_job(settings), gpt3, h100);
  };

  // The README's job: 1,024 GPUs as TP 8 x PP 16 -> DP 8; 512 sequences in micro-batches of 1.
  const study::SynthJobFit ok = resolve({"model=gpt3-175b", "tp=8", "pp=16", "gpus=1024", "global-batch=512",
                                         "schedule=interleaved", "virtual-stages=3", "sp=true"});
  REQUIRE(ok.runs);
  CHECK(ok.refusal.empty());
  CHECK(ok.par.dp == 8);
  CHECK(ok.par.micro_batches == 64);
  CHECK(ok.memory.total() > 0);
  CHECK(ok.memory.total() < 80.0 * (1 << 30));

  const study::SynthJobFit split = resolve({"model=gpt3-175b", "tp=8", "pp=12", "gpus=1024"});
  CHECK_FALSE(split.runs);
  CHECK(split.refusal == "gpus 1024 is not a multiple of tp x pp = 96");
  CHECK(split.par.dp == 0);

  const study::SynthJobFit batch = resolve({"model=gpt3-175b", "tp=8", "pp=16", "gpus=1024", "global-batch=100"});
  CHECK_FALSE(batch.runs);
  CHECK(batch.refusal == "global-batch 100 is not a multiple of dp x micro-batch-size = 8");
  CHECK(batch.par.dp == 8);
  CHECK(batch.par.micro_batches == 0);

  // trace synth's own refusals, with the sweep's key: the model, the platform, the memory.
  const study::SynthJobFit layers = resolve({"model=gpt3-175b", "tp=8", "pp=128", "dp=1"});
  CHECK_FALSE(layers.runs);
  CHECK(layers.refusal == "pp: gpt3-175b has 96 layers, fewer than 128 pipeline stages: each stage needs one");
  const study::SynthJobFit ranks = resolve({"model=gpt3-175b", "tp=8", "pp=16", "dp=16"});
  CHECK_FALSE(ranks.runs);
  CHECK_THAT(ranks.refusal, Catch::Contains("2048") && Catch::Contains("1024"));
  const study::SynthJobFit memory = resolve({"model=gpt3-175b", "tp=8", "pp=4", "dp=2"});
  CHECK_FALSE(memory.runs);
  CHECK_THAT(memory.refusal, Catch::StartsWith("needs ") && Catch::Contains("per accelerator"));
  CHECK(memory.memory.total() > 80.0 * (1 << 30));
}

TEST_CASE("trace synth's job: synthesized on its platform, with what it says of it") {
  study::SynthRequest request;
  request.model = "small-gpt";
  request.platform = "qu2025-fit";  // 2 nodes of 2 accelerators
  request.job.par.pp = 2;
  request.job.par.dp = 2;
  request.job.par.micro_batches = 2;
  request.job.distributed_optimizer = true;
  const study::SynthTrace synthesized = study::synth_trace(request, platforms());
  CHECK(synthesized.job.trace.world_size == 4);
  CHECK(synthesized.job.trace.platform == "qu2025-fit");
  CHECK_THAT(synthesized.report, Catch::StartsWith("trace synth: small-gpt") && Catch::Contains("ZeRO 1"));
  CHECK_THAT(synthesized.report, !Catch::Contains("--set"));

  // --set changes the platform, and the report says that the replay needs it too.
  request.job.par.dp = 4;  // 8 ranks: 4 nodes
  request.settings = {"nodes=4"};
  const study::SynthTrace grown = study::synth_trace(request, platforms());
  CHECK(grown.job.trace.world_size == 8);
  CHECK_THAT(grown.report, Catch::Contains("with --set nodes=4: replay the trace with the same settings\n"));

  auto error_of_request = [](const study::SynthRequest& r) {
    return test::message_of([&] { study::synth_trace(r, platforms()); });
  };
  request.settings = {"compute.scale=2"};
  CHECK_THAT(error_of_request(request), Catch::StartsWith("command line: field '--set': trace synth takes only"));
  request.settings.clear();
  request.job.par.zero = 3;
  CHECK_THAT(error_of_request(request), Catch::StartsWith("command line: field '--distributed-optimizer': "));
  request.model.clear();
  CHECK(error_of_request(request) == "command line: field '--model': expected a model preset or file, got \"\"");
}
