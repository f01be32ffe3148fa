#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collective/algorithm_choice.hpp"
#include "core/units.hpp"
#include "study/data_lookup.hpp"
#include "study/replay_setup.hpp"
#include "topology/platform.hpp"

namespace ccsim::study {

/// One all_reduce of `bytes` on the first `ranks` accelerators of a platform (node-major, as
/// placement tp,pp,dp puts a group of consecutive ranks): every algorithm's predicted time by
/// the closed form of its schedule. Shared by `whatif --collective` and `sweep`'s collective mode.
struct CollectiveStudy {
  collective::GroupLinks links;
  /// The calibrated network model the platform references, whose figures the links take
  /// (engine::calibrated_links, as --algo auto in a replay); "" for the platform's nominal links.
  std::string network_model;
  std::vector<collective::Prediction> predictions;
  int ranks = 0;
  int nodes = 0;  ///< nodes the group spans
  std::uint64_t bytes = 0;
  DType dtype = DType::kF32;
};

/// A description of what the predictions assume: the closed form and where the links come from.
std::string describe_model(const CollectiveStudy& study);

/// `compress`: a --compress SPEC, "" for none. Throws InputError("command line", 0, "--ranks", ...)
/// when the platform has fewer accelerators than `ranks`, before `lookup` loads the platform's
/// network model and the compressor model.
CollectiveStudy study_collective(const topology::Platform& platform, const std::string& compress, int ranks,
                                 std::uint64_t bytes, DType dtype, const DataLookup& lookup);

/// A platform and its collective study, as `whatif --collective` makes one per run.
struct CollectivePlatform {
  topology::Platform platform;
  CollectiveStudy study;
};

/// The study of one all_reduce under `settings` (with_settings applied): its platform with the
/// --set overrides (lookup.platform) and its compressor (--compress, or --set compress=).
CollectivePlatform study_collective(const ReplaySettings& settings, int ranks, std::uint64_t bytes, DType dtype,
                                    const DataLookup& lookup);

/// What --algo auto chooses among `predictions` and by how much: the fastest prediction, and
/// the next best one (none when only one algorithm applies). Points into the predictions.
struct AutoChoice {
  const collective::Prediction* chosen = nullptr;
  const collective::Prediction* next = nullptr;
  /// "auto chooses ring: the lowest predicted time, 52.777 ms; 1.264x faster than
  /// hierarchical (66.678 ms), the next best".
  std::string line() const;
  /// " (auto)" after the chosen algorithm's name in a table, "" after the others'.
  std::string mark(const std::string& algorithm) const { return algorithm == chosen->algorithm ? " (auto)" : ""; }
};
/// `predictions` must not be empty.
AutoChoice auto_choice(const std::vector<collective::Prediction>& predictions);

/// One algorithm of `whatif --collective` in both of its runs: the baseline's prediction and
/// the what-if's, nullptr in a run without that algorithm (a compressor changes the list).
/// Points into the studies.
struct PairedPrediction {
  std::string algorithm;
  const collective::Prediction* baseline = nullptr;
  const collective::Prediction* what_if = nullptr;
  /// The prediction a table shows: the what-if's, else the baseline's.
  const collective::Prediction& shown() const { return what_if != nullptr ? *what_if : *baseline; }
};
/// The algorithms of both runs paired by name: the what-if's in its order, then those only
/// the baseline has; without a what-if (nullptr) the baseline's alone.
std::vector<PairedPrediction> pair_predictions(const CollectiveStudy& baseline, const CollectiveStudy* what_if);

/// The notes of `whatif --collective` on `ranks` ranks: the `settings` (--set) with nothing to
/// act on in one all_reduce of which every algorithm is predicted (idle_settings; `compressed`:
/// a compressor applies), then the bandwidth settings that leave the messages bound by another
/// link (bottleneck_notes, `baseline` against `shown`, on the `nodes` the group spans).
std::vector<std::string> collective_notes(const std::vector<std::string>& settings, int ranks, bool compressed,
                                          const topology::Platform& baseline, const topology::Platform& shown,
                                          int nodes);

/// Checks a collective's buffer for its element type: one element to 1 PiB, a whole number of
/// elements. Throws InputError(file, line, field, ...).
void check_collective_bytes(std::uint64_t bytes, const std::string& text, DType dtype, const std::string& file,
                            int line, const std::string& field);

/// One collective as `whatif --collective` takes it: its group, element type and buffer.
struct CollectiveSize {
  int ranks = 0;
  DType dtype = DType::kF32;
  std::uint64_t bytes = 0;
};

/// `ranks`, `dtype` and `bytes` as given on the command line, checked in that order:
/// InputError naming --ranks (2 to kMaxCollectiveRanks, study/sweep.hpp), --dtype or --bytes
/// (check_collective_bytes).
CollectiveSize parse_collective_size(int ranks, const std::string& dtype, const std::string& bytes);

/// nccl-tests' bus bandwidth of all_reduce: algorithm bandwidth x 2(p-1)/p, bytes/s.
double all_reduce_bus_bandwidth_Bps(std::uint64_t bytes, double time_s, int ranks);

}  // namespace ccsim::study
