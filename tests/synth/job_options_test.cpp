// The options of a synthesized job (synth/job_options.hpp): one table for trace synth's
// command line and a sweep's synth settings, values set from text as a sweep gives them, and
// the parallelism finished as trace synth finishes it.
#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "support/error_of.hpp"
#include "synth/job_options.hpp"

using namespace ccsim;

namespace {

const synth::JobOption& option(std::string_view name) {
  const synth::JobOption* found = synth::find_job_option(name);
  REQUIRE(found != nullptr);
  return *found;
}

}  // namespace

TEST_CASE("every job option has one name, help and what it sets", "[synth]") {
  std::set<std::string_view> names;
  for (const synth::JobOption& o : synth::job_options()) {
    CAPTURE(o.name);
    CHECK(names.insert(o.name).second);
    CHECK_FALSE(o.help.empty());
    switch (o.kind) {
      case synth::JobOptionKind::kInteger:
        CHECK(o.integer != nullptr);
        CHECK(o.min <= o.max);
        break;
      case synth::JobOptionKind::kNumber:
        CHECK(o.number != nullptr);
        break;
      case synth::JobOptionKind::kFlag:
        CHECK(o.flag != nullptr);
        break;
      case synth::JobOptionKind::kChoice:
        CHECK(o.choose != nullptr);
        CHECK(o.chosen != nullptr);
        // The default is one of the choices.
        synth::JobOptions job;
        CHECK(std::find(o.choices.begin(), o.choices.end(), o.chosen(job)) != o.choices.end());
        break;
    }
  }
  CHECK(synth::job_options().front().name == "tp");  // --help's order
  CHECK(synth::find_job_option("micro-batchs") == nullptr);
}

TEST_CASE("job options are set from a setting's text, or say what they expect", "[synth]") {
  synth::JobOptions job;
  CHECK(synth::set_job_option(job, option("tp"), "8").empty());
  CHECK(job.par.tp == 8);
  CHECK(synth::set_job_option(job, option("tp"), "0") == "expected a whole number 1..1048576, got \"0\"");
  CHECK(synth::set_job_option(job, option("seq"), "x") == "expected a whole number 1..16777216, got \"x\"");
  CHECK(synth::set_job_option(job, option("zero"), "4") == "expected a whole number 0..3, got \"4\"");
  CHECK(job.par.tp == 8);  // a refused value changes nothing

  CHECK(synth::set_job_option(job, option("sp"), "true").empty());
  CHECK(job.par.sp);
  CHECK(synth::set_job_option(job, option("sp"), "yes") == "expected one of true, false, got \"yes\"");
  // A --no-... flag given (true) turns its fusion off.
  CHECK(synth::set_job_option(job, option("no-bias-gelu-fusion"), "true").empty());
  CHECK_FALSE(job.par.bias_activation_fusion);
  CHECK(synth::set_job_option(job, option("distributed-optimizer"), "true").empty());
  CHECK(job.distributed_optimizer);

  CHECK(option("schedule").chosen(job) == "1f1b");  // trace synth's default
  CHECK(synth::set_job_option(job, option("schedule"), "interleaved").empty());
  CHECK(job.par.schedule == synth::PipelineSchedule::kInterleaved);
  CHECK(synth::set_job_option(job, option("schedule"), "interleave") ==
        "expected one of gpipe, 1f1b, interleaved, got \"interleave\"; did you mean interleaved?");
  CHECK(synth::set_job_option(job, option("recompute"), "full").empty());
  CHECK(job.par.recompute == synth::Recompute::kFull);

  CHECK(synth::set_job_option(job, option("bucket-size"), "5e7").empty());
  CHECK(job.par.bucket_params == 5e7);
  CHECK(synth::set_job_option(job, option("bucket-size"), "-1") == "expected a number 0 or more, got \"-1\"");
}

TEST_CASE("a job's parallelism: the interleaved schedule's chunks, the distributed optimizer's stage", "[synth]") {
  synth::JobOptions job;
  CHECK(job.par.virtual_stages == 0);  // not given
  CHECK(synth::job_parallelism(job, synth::JobOptionSyntax::kCommandLine).virtual_stages == 1);
  job.par.schedule = synth::PipelineSchedule::kInterleaved;
  CHECK(synth::job_parallelism(job, synth::JobOptionSyntax::kCommandLine).virtual_stages == 2);
  job.par.virtual_stages = 4;
  CHECK(synth::job_parallelism(job, synth::JobOptionSyntax::kCommandLine).virtual_stages == 4);

  job.distributed_optimizer = true;
  CHECK(synth::job_parallelism(job, synth::JobOptionSyntax::kSettings).zero == 1);
  job.par.zero = 1;
  CHECK(synth::job_parallelism(job, synth::JobOptionSyntax::kSettings).zero == 1);
  job.par.zero = 2;
  CHECK(test::message_of([&] { synth::job_parallelism(job, synth::JobOptionSyntax::kSettings); }) ==
        "synth: field 'distributed-optimizer': is ZeRO stage 1; zero = 2 asks for another stage");
  CHECK(test::message_of([&] { synth::job_parallelism(job, synth::JobOptionSyntax::kCommandLine); }) ==
        "command line: field '--distributed-optimizer': is ZeRO stage 1 (optimizer states sharded over the DP "
        "group); --zero 2 asks for another stage");
}
