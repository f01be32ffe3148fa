#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/units.hpp"
#include "study/data_lookup.hpp"
#include "study/replay_setup.hpp"
#include "study/sweep.hpp"
#include "synth/model_spec.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

namespace ccsim::study {

/// The engine a sweep runs: `option` (--engine: "sim", "closed-form" or "" for none), else the
/// spec's, else the closed form for the collective mode and SimGrid for the others. The closed
/// form of a trace or synth sweep is an InputError at the spec's "engine" or at --engine.
SweepEngine choose_sweep_engine(const SweepSpec& spec, const std::string& option);

/// The evaluation of a sweep's scenarios, one at a time, into rows: one per scenario of the
/// trace and synth modes, one per algorithm shown of the collective mode (sweeps/README.md
/// names the columns). A worker process keeps one and evaluates its scenarios in order: the
/// platforms it built serve its later scenarios.
class SweepRunner {
 public:
  SweepRunner(SweepSpec spec, SweepEngine engine, DataLookup lookup);

  /// Checks what needs files, once, before any work: platforms exist (lookup.platform_file),
  /// compressors have models, synth models read, traces read (and are kept: forked workers
  /// share them). An error names the spec value (file, line, field).
  void check_files();

  /// The rows of scenario `index`, a JSON array. An InputError is rethrown at the spec value
  /// it is about (a --set key, --ranks, --platform, --compress, a synth key) or, when none,
  /// with "(scenario N of SPEC)" added.
  nlohmann::ordered_json rows(std::size_t index);
  /// rows(index) as JSON text: a worker's outcome.
  std::string evaluate(std::size_t index);

  const SweepSpec& spec() const { return spec_; }
  SweepEngine engine() const { return engine_; }

 private:
  ReplaySettings settings_of(const Scenario& s) const;
  const topology::Platform& platform(const ReplaySettings& settings, const std::string& name);
  nlohmann::ordered_json head(std::size_t index, const Scenario& s, const std::string& platform_name) const;
  nlohmann::ordered_json trace_rows(std::size_t index, const Scenario& s);
  nlohmann::ordered_json synth_rows(std::size_t index, const Scenario& s);
  nlohmann::ordered_json collective_rows(std::size_t index, const Scenario& s);
  double simulate_collective(const ReplaySettings& given, const topology::Platform& p, const std::string& algorithm,
                             int ranks, std::uint64_t bytes, DType dtype) const;

  SweepSpec spec_;
  SweepEngine engine_;
  DataLookup lookup_;
  std::map<std::string, trace::Trace> traces_;           ///< by the spec's trace text
  std::map<std::string, synth::ModelSpec> models_;       ///< by the spec's synth.model text
  std::map<std::string, topology::Platform> platforms_;  ///< by platform and settings
};

/// The rows of every scenario's outcome (SweepRunner::evaluate, as run_in_workers returns it),
/// in scenario order: a failed scenario's error is rethrown (engine::decode_outcome), a
/// scenario without an outcome is an internal error (std::runtime_error).
std::vector<nlohmann::ordered_json> outcome_rows(const std::vector<std::string>& outcomes);

/// The rows of a sweep as `format` ("csv": a header of the first row's columns, then one line
/// per row, null as an empty field; "json": a document with the sweep, its mode and engine, the
/// scenario count and the rows).
std::string render_sweep_rows(const SweepSpec& spec, SweepEngine engine,
                              const std::vector<nlohmann::ordered_json>& rows, const std::string& format);

}  // namespace ccsim::study
