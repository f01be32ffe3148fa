#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/units.hpp"
#include "study/collective_study.hpp"
#include "study/data_lookup.hpp"
#include "study/replay_setup.hpp"

namespace ccsim::study {

/// `whatif --collective`: every algorithm of one all_reduce predicted by the closed forms on
/// the platform as it is (the baseline) and, with --set, as changed (the what-if), paired by
/// algorithm, with the auto choice and the notes on the settings. Move-only: the rows and the
/// choice point into the studies, which it holds.
struct CollectiveWhatIf {
  std::string collective = "all_reduce";
  std::uint64_t bytes = 0;
  DType dtype = DType::kF32;
  int ranks = 0;
  std::vector<std::string> settings;  ///< --set KEY=VALUE, the what-if's assumptions, in order
  std::unique_ptr<const CollectivePlatform> baseline;
  std::unique_ptr<const CollectivePlatform> what_if;  ///< null without --set
  std::vector<std::string> notes;                     ///< collective_notes
  std::vector<PairedPrediction> rows;                 ///< pair_predictions
  AutoChoice choice;                                  ///< among the shown run's predictions

  /// The run the tables show: the what-if's, else the baseline's.
  const CollectivePlatform& shown() const { return what_if ? *what_if : *baseline; }
};

/// The predictions of `whatif --collective` under `settings` (the platform, --compress and
/// --set; the baseline without --set): study_collective for each run, then pair_predictions,
/// auto_choice and collective_notes.
CollectiveWhatIf whatif_collective(const ReplaySettings& settings, int ranks, std::uint64_t bytes, DType dtype,
                                   const DataLookup& lookup);

/// The text of `whatif --collective`: the run, the assumptions and notes, the links, the model,
/// a row per algorithm (both runs' times and the change with --set) and the auto choice.
std::string collective_whatif_text(const CollectiveWhatIf& w);

/// The same as a JSON document (--format json): the run, "assumptions", "notes", "model",
/// "auto" (algorithm, time_ms, next_best, next_best_ms, speedup) and "algorithms" (time_ms, or
/// baseline_ms, what_if_ms and change_percent with --set, null where a run lacks the algorithm;
/// algbw_GBps, busbw_GBps, nic_sharing).
std::string collective_whatif_json(const CollectiveWhatIf& w);

}  // namespace ccsim::study
