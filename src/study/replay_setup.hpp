#pragma once

#include <string>
#include <vector>

#include "calibrate/compute_model.hpp"
#include "engine/replay.hpp"
#include "engine/result.hpp"
#include "study/data_lookup.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

namespace ccsim::study {

/// How a trace is replayed, as every simulating command takes it (replay, compare, whatif,
/// cost, report, sweep): option values as given, checked where they are used.
struct ReplaySettings {
  std::string platform;  ///< NAME|FILE; empty: the platform the trace names
  std::string algorithm = "auto";
  std::string compress;  ///< a compressor SPEC; empty: plain
  std::string compress_min_bytes = "0";
  bool compress_all = false;  ///< engine::CompressionOptions::all
  std::string placement = "auto";
  bool oversubscribe = false;
  bool simgrid_log = false;
  std::string network_model;          ///< NAME|FILE, "nominal"; empty: the one the platform names, if any
  std::string compute = "auto";       ///< auto|keep|rescale|peak|model:FILE (apply_compute)
  std::vector<std::string> settings;  ///< --set KEY=VALUE, in order (study/what_if.hpp)
  bool full = false;                  ///< no shortcut (engine::ReplayOptions::fast off)
  bool fast = false;                  ///< the approximate shortcut too (engine::ReplayOptions::coarse_rings)
  bool every_replica = false;         ///< not engine::ReplayOptions::fold_replicas
};

/// `settings` with the compressor and algorithm settings of its --set applied (compress=, algo=,
/// compress.min_bytes=); the platform and compute settings apply in replay_platform() and
/// replay_options().
ReplaySettings with_settings(const ReplaySettings& settings);

/// The platform of `settings` (or the one `trace` names: an InputError naming the trace when
/// it names none), with the platform settings of --set.
topology::Platform replay_platform(const ReplaySettings& settings, const trace::Trace& trace, const DataLookup& lookup);

/// The engine's options (with_settings applied): the compressor model of --compress, the
/// calibrated network model of --network-model or else the one `platform` names ("nominal":
/// none), the algorithm, placement and shortcuts. --compress-all without a compressor is an
/// InputError.
engine::ReplayOptions replay_options(const ReplaySettings& settings, const topology::Platform& platform,
                                     const DataLookup& lookup);

/// Applies --compute to the trace's measured compute durations for a replay on `platform`
/// (calibrate::price_compute) and returns what it did (`summary`: the sentence the report
/// prints). Call once per trace, before replay_options' results are used: compare and cost
/// replay the adjusted trace twice. Also sets `options.compute` (that sentence) and
/// `options.compute_cost` (how every compute operator is priced: measured durations, else the
/// accelerator profile of --compute model:PROFILE or of the platform, else the peak rates).
calibrate::ComputeAdjustment apply_compute(const ReplaySettings& settings, trace::Trace& trace,
                                           const topology::Platform& platform, engine::ReplayOptions& options,
                                           const DataLookup& lookup);

/// The notes on the --set settings of `settings` in `result`, a replay of `trace` (adjusted by
/// `compute`, apply_compute's) on `platform`: those that had nothing to act on, each with the
/// reason (idle_settings), then bandwidth settings that leave the messages they act on bound
/// by another link, against the platform without --set (bottleneck_notes).
std::vector<std::string> setting_notes(const ReplaySettings& settings, const trace::Trace& trace,
                                       const topology::Platform& platform, const engine::Result& result,
                                       const calibrate::ComputeAdjustment& compute, const DataLookup& lookup);

/// Lists the --set settings first among `result`'s notes ("set: KEY=VALUE"), so that a report
/// says what it assumed, and then `setting_notes` (setting_notes of this replay), each "set: NOTE".
void note_settings(const ReplaySettings& settings, const std::vector<std::string>& setting_notes,
                   engine::Result& result);

}  // namespace ccsim::study
