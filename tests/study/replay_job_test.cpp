// The replays of a job as the simulating commands run them (study/replay_job.hpp), on the
// profile of traces/ and the platforms and models of the repository: each replay is the one
// engine::replay gives for the same set-up, in the order and with the labels the request says.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "study/data_folders.hpp"
#include "study/replay_job.hpp"
#include "trace/native_reader.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;

namespace {

const std::string kRoot = CCSIM_SOURCE_DIR;

study::DataLookup repository_lookup() {
  study::DataFolders folders;
  folders.platforms = {kRoot + "/platforms", kRoot + "/tests/data"};
  folders.network_models = {kRoot + "/models/network"};
  folders.compressors = {kRoot + "/models/compressors"};
  folders.compute_profiles = {kRoot + "/models/compute"};
  folders.source_dir = kRoot;
  return study::folder_lookup(folders);
}

trace::Trace profile() { return trace::read_native(kRoot + "/traces/qu2025-profile.json"); }

/// The replay of the profile set up step by step (study/replay_setup.hpp), as each command did.
engine::Result replay_by_steps(const study::ReplaySettings& s, const study::DataLookup& lookup, bool plain) {
  trace::Trace t = profile();
  const topology::Platform p = study::replay_platform(s, t, lookup);
  engine::ReplayOptions o = study::replay_options(s, p, lookup);
  study::apply_compute(s, t, p, o, lookup);
  if (plain) o.compression = engine::CompressionOptions{};
  return engine::replay(t, p, o);
}

}  // namespace

TEST_CASE("a job replays once as set, after the caller's checks", "[study]") {
  const study::DataLookup lookup = repository_lookup();
  study::ReplaySettings s;
  s.settings = {"intra.latency=2us"};
  int checks = 0;
  study::JobRequest request;
  request.note_settings = true;
  request.before_replays = [&checks](const study::ReplayJob& job) {
    ++checks;
    CHECK(job.platform.name == "qu2025-fit");  // the one the trace names
    CHECK(job.trace.world_size == 4);
  };
  const study::JobReplays r = study::replay_job(profile(), s, request, lookup);
  CHECK(checks == 1);
  REQUIRE(r.results.size() == 1);
  CHECK(r.labels == std::vector<std::string>{""});
  CHECK(r.last().makespan_s == replay_by_steps(s, lookup, false).makespan_s);
  REQUIRE_FALSE(r.last().notes.empty());
  CHECK(r.last().notes.front() == "set: intra.latency=2us");  // note_settings: the settings first
  CHECK(r.job.options.wait_spans == false);

  // What the checks throw ends the job before any simulation.
  request.before_replays = [](const study::ReplayJob&) {
    throw InputError("command line", 0, "--output", "expected a file, got \"x\"");
  };
  CHECK_THROWS_WITH(study::replay_job(profile(), s, request, lookup),
                    "command line: field '--output': expected a file, got \"x\"");
}

TEST_CASE("a job replays plain, then compressed when the settings compress", "[study]") {
  const study::DataLookup lookup = repository_lookup();
  study::ReplaySettings s;
  s.platform = "tiny";
  study::JobRequest request;
  request.runs = study::JobRuns::kPlainThenCompressed;
  const study::JobReplays plain_only = study::replay_job(profile(), s, request, lookup);
  CHECK(plain_only.labels == std::vector<std::string>{"plain"});
  CHECK(plain_only.job.platform.name == "tiny");
  CHECK(plain_only.setting_notes.empty());  // nothing set

  s.compress = "cuszp:eb=1e-3";
  s.compress_all = true;
  s.settings = {"compress.min_bytes=1MiB"};
  request.plain_algorithm = "ring";
  const study::JobReplays both = study::replay_job(profile(), s, request, lookup);
  REQUIRE(both.labels == std::vector<std::string>{"plain", "compressed"});
  const auto runs = both.runs();
  REQUIRE(runs.size() == 2);
  CHECK(runs[1].first == "compressed");
  CHECK(runs[1].second == &both.last());
  CHECK(both.last().makespan_s == replay_by_steps(s, lookup, false).makespan_s);
  study::ReplaySettings ring = s;
  ring.algorithm = "ring";
  CHECK(both.results.front().makespan_s == replay_by_steps(ring, lookup, true).makespan_s);
  // The setting notes are of the last replay, and stay out of its notes unless asked.
  CHECK(both.setting_notes ==
        study::setting_notes(s, both.job.trace, both.job.platform, both.last(), both.job.compute, lookup));
  for (const std::string& note : both.last().notes) CHECK_FALSE(note.starts_with("set: "));
}

TEST_CASE("a what-if replays the baseline without --set, then the settings", "[study]") {
  const study::DataLookup lookup = repository_lookup();
  study::ReplaySettings s;
  s.settings = {"inter.bandwidth=x2", "compress.min_bytes=1MiB"};
  study::JobRequest request;
  request.wait_spans = true;
  int checks = 0;
  request.before_replays = [&checks](const study::ReplayJob& job) {
    ++checks;
    CHECK(job.options.wait_spans);
  };
  const study::WhatIfReplays w = study::replay_what_if(profile(), s, request, lookup);
  CHECK(checks == 1);
  study::ReplaySettings unset = s;
  unset.settings.clear();
  CHECK(w.baseline.last().makespan_s == replay_by_steps(unset, lookup, false).makespan_s);
  CHECK(w.what_if.last().makespan_s == replay_by_steps(s, lookup, false).makespan_s);
  CHECK(w.baseline.setting_notes.empty());
  REQUIRE_FALSE(w.what_if.setting_notes.empty());
  CHECK_THAT(w.what_if.setting_notes.front(), Contains("compress.min_bytes=1MiB: no effect"));

  const std::vector<std::string> notes = study::what_if_notes(w);
  const std::size_t b = w.baseline.last().notes.size();
  const std::size_t c = w.what_if.last().notes.size();
  REQUIRE(notes.size() == b + c + w.what_if.setting_notes.size());
  if (b > 0) CHECK(notes.front() == "baseline: " + w.baseline.last().notes.front());
  CHECK(notes.back() == "what_if: " + w.what_if.setting_notes.back());
}

TEST_CASE("a cost or report states each --set setting, then its notes", "[study]") {
  study::ReplaySettings s;
  s.settings = {"intra.latency=2us", "compute.scale=2"};
  CHECK(study::setting_assumptions(s, {"compute.scale=2: no effect: the run has no compute operator"}) ==
        std::vector<std::string>{"set: intra.latency=2us (--set)", "set: compute.scale=2 (--set)",
                                 "set: compute.scale=2: no effect: the run has no compute operator"});
  CHECK(study::setting_assumptions({}, {}).empty());
}
