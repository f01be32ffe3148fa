#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/input_error.hpp"

namespace ccsim::study {

inline constexpr std::string_view kSweepFormat = "ccsim-sweep";
inline constexpr int kSweepVersion = 1;

/// The largest group of the collective mode (whatif --collective, sweeps): a schedule's steps
/// are walked once per rank to count the flows that share a NIC (O(ranks^2) for a ring).
inline constexpr int kMaxCollectiveRanks = 4096;
/// The most scenarios one sweep expands to (a grid is a product: a typo can make it huge). A
/// million took more than 10 s and 1.3 GB just to expand under the sanitizers (found by
/// tests/fuzz/sweep_fuzz.cpp); 100,000 simulations are already hours of work.
inline constexpr std::size_t kMaxSweepScenarios = 100000;

/// What a sweep evaluates per scenario: a trace's iteration, one collective, or the iteration
/// of a job that `trace synth` writes the trace of (study/synth_job.hpp).
enum class SweepMode { kTrace, kCollective, kSynth };
/// How: SimGrid replays (contention, overlap) or the closed forms of the schedules.
enum class SweepEngine { kSim, kClosedForm };

/// One value of a sweep axis, as text, and where the spec gave it (for errors).
struct SweepValue {
  std::string text;
  SourceRef at;
};

/// One scenario of a sweep: a value per axis it sets (absent: the default of that axis).
struct Scenario {
  std::optional<SweepValue> platform;
  std::optional<SweepValue> trace;
  std::optional<SweepValue> compress;  ///< a --compress SPEC or "none"
  std::optional<SweepValue> algo;
  std::optional<SweepValue> dtype;
  std::optional<SweepValue> ranks;
  std::optional<SweepValue> bytes;
  std::vector<SweepValue> settings;  ///< "KEY=VALUE" of `--set`, in the order of SweepSpec::set_keys
  std::vector<SweepValue> synth;     ///< "KEY=VALUE" of the synth mode's job, in the order of SweepSpec::synth_keys
};

/// A sweep specification (sweeps/README.md): a grid (every combination of its axes) or a list
/// of scenarios, read strictly and expanded in a fixed order.
struct SweepSpec {
  std::string file;
  std::string description;
  SweepMode mode = SweepMode::kTrace;
  std::optional<SweepEngine> engine;  ///< the spec's own choice; --engine overrides it
  SourceRef engine_at;
  std::string collective = "all_reduce";
  std::vector<std::string> set_keys;    ///< the `--set` keys any scenario sets, in spec order: row columns
  std::vector<std::string> synth_keys;  ///< the synth keys any scenario sets, in spec order
  std::vector<Scenario> scenarios;
};

/// Reads a sweep spec: JSON, or TOML when the path ends in ".toml" (the same schema, read
/// through toml::to_json_text: the same checks and messages). Every value is checked for its form here (a --set key and
/// value, a compressor SPEC, an algorithm name, a size, a dtype, a rank count); what needs files (platforms, traces,
/// compressor models) is checked by the caller. Errors name the file, the line and the field path
/// (grid.set.inter.bandwidth[1]) and what is valid.
SweepSpec read_sweep_spec(const std::string& path);
SweepSpec parse_sweep_spec(std::string_view text, const std::string& file);

std::string_view sweep_engine_name(SweepEngine engine);
std::string_view sweep_mode_name(SweepMode mode);

/// Runs `work(i)` for every i in `items` and returns each outcome (engine::encode_outcome of
/// engine/child_process.hpp) by position. With `jobs` > 1 the items are spread over `jobs`
/// forked worker processes, worker w taking positions w, w + jobs, ..., each in order (so
/// that caches of one worker serve its items, and the first failing position is the same
/// whatever `jobs`); with `jobs` <= 1 they run here, in order. A worker stops at its first
/// failed item: the outcomes of its later positions stay empty. `done(finished)` is called
/// here after every finished item. A worker that dies is a failure of the item it was on.
std::vector<std::string> run_in_workers(const std::vector<std::size_t>& items, int jobs,
                                        const std::function<std::string(std::size_t)>& work,
                                        const std::function<void(std::size_t finished)>& done);

/// The items of `total` that rank `rank` of `ranks` takes: rank, rank + ranks, ... (every one
/// for a single rank), as a sweep spreads its scenarios over MPI ranks.
std::vector<std::size_t> rank_items(std::size_t total, int rank, int ranks);

/// Packs outcomes (position, bytes) into one string, and back: what MPI ranks exchange.
std::string pack_outcomes(const std::vector<std::size_t>& items, const std::vector<std::string>& outcomes);
void unpack_outcomes(std::string_view packed, std::vector<std::string>& outcomes_by_item);

}  // namespace ccsim::study
