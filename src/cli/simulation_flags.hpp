#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "calibrate/compute_model.hpp"
#include "engine/replay.hpp"
#include "report/breakdown.hpp"
#include "report/summary.hpp"
#include "study/data_lookup.hpp"
#include "study/what_if.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

namespace ccsim::cli {

/// The options every simulating subcommand shares (replay, compare).
struct SimulationFlags {
  std::string platform;
  std::string algorithm = "auto";
  std::string compress;
  std::string compress_min_bytes = "0";
  bool compress_all = false;  ///< --compress-all (engine::CompressionOptions::all)
  std::string placement = "auto";
  bool oversubscribe = false;
  bool simgrid_log = false;
  std::string network_model;          ///< NAME|FILE; empty: the one the platform names, if any
  std::string compute = "auto";       ///< auto|keep|rescale|peak|model:FILE (apply_compute_flag)
  std::vector<std::string> settings;  ///< --set KEY=VALUE, in order (study/what_if.hpp)
  bool full = false;                  ///< --full: no shortcut (engine::ReplayOptions::fast off)
  bool fast = false;                  ///< --fast: the approximate shortcut too (engine::ReplayOptions::coarse_rings)
  bool every_replica = false;         ///< --every-replica (not engine::ReplayOptions::fold_replicas)
};

/// Registers --platform, --algo, --placement, --oversubscribe, --network-model, --simgrid-log and, with
/// `compress`, --compress, --compress-min-bytes and --compress-all on `sub`.
void add_simulation_flags(CLI::App* sub, SimulationFlags& flags, bool compress);

/// Registers --set KEY=VALUE (repeatable) on `sub`: the what-if overrides of study/what_if.hpp.
void add_set_flag(CLI::App* sub, std::vector<std::string>& settings);

/// `flags` with the compressor and algorithm settings of --set applied (compress=, algo=,
/// compress.min_bytes=); the platform and compute settings apply in load_platform() and replay_options().
SimulationFlags with_settings(const SimulationFlags& flags);

/// The notes on the --set settings of `flags` in `result`, a replay of `trace` (adjusted by
/// `compute`, apply_compute_flag's) on `platform`: those that had nothing to act on, each with
/// the reason (study::idle_settings), then bandwidth settings that leave the messages they act
/// on bound by another link, against the platform without --set (study::bottleneck_notes).
std::vector<std::string> setting_notes(const SimulationFlags& flags, const trace::Trace& trace,
                                       const topology::Platform& platform, const engine::Result& result,
                                       const calibrate::ComputeAdjustment& compute);

/// Lists the --set settings of `flags` first among `result`'s notes ("set: KEY=VALUE"), so that a
/// report says what it assumed, and then the notes of setting_notes on this replay of `trace`.
void note_settings(const SimulationFlags& flags, const trace::Trace& trace, const topology::Platform& platform,
                   const calibrate::ComputeAdjustment& compute, engine::Result& result);

/// Choices for one_of (cli/option_values.hpp): `names` (algorithms of the registry), after "auto" when `with_auto`.
std::vector<std::string> algorithm_choices(const std::vector<std::string_view>& names, bool with_auto);

/// The platform of --platform, or the one the trace names, with the platform settings of --set.
topology::Platform load_platform(const SimulationFlags& flags, const trace::Trace& trace);

/// Replay options from the flags (loads the compressor model of --compress, if any, and the
/// network model of --network-model or else the one `platform` names).
engine::ReplayOptions replay_options(const SimulationFlags& flags, const topology::Platform& platform);

/// Applies --compute to the trace's measured compute durations for a replay on `platform`
/// (calibrate::adjust_compute) and returns what it did (`summary`: the sentence the report
/// prints). Call once per trace, before replay_options' results are used: compare and cost
/// replay the adjusted trace twice.
/// Also sets `options.compute` (that sentence) and `options.compute_cost` (how every compute
/// operator is priced: measured durations, else the accelerator profile of --compute
/// model:PROFILE or of the platform, else the peak rates).
calibrate::ComputeAdjustment apply_compute_flag(const SimulationFlags& flags, trace::Trace& trace,
                                                const topology::Platform& platform, engine::ReplayOptions& options);

/// Folders searched for accelerator profiles: $CCSIM_COMPUTE_MODELS, then models/compute/.
std::vector<std::string> compute_profile_dirs();
/// The accelerator profile a platform names (`compute_profile`), nullptr when none.
std::shared_ptr<const topology::AcceleratorProfile> load_platform_profile(const topology::Platform& platform);

/// --rows of replay, compare and whatif: "operator", "name" or "kind".
report::RowKey rows_key(const std::string& rows);
/// --rows of replay, compare and whatif: the choices, and the default's help.
inline constexpr const char* kRowsAutoHelp =
    "'auto' (the default): one row per operator for stages of at most 100 operators per rank, per name beyond; ";
std::vector<std::string> rows_choices();
inline constexpr const char* kRowsKindHelp =
    "'kind': where each rank's time goes, compute, exposed communication by kind, pipeline bubble, collective wait "
    "and idle, adding up to the iteration (docs/summary.md)";

/// Folders searched for compressor models: $CCSIM_COMPRESSORS, then models/compressors/.
std::vector<std::string> compressor_dirs();

/// Folders searched for network models: $CCSIM_NETWORK_MODELS, then models/network/.
std::vector<std::string> network_model_dirs();
/// The calibrated network model a platform names (`network_model`), nullptr when none.
std::shared_ptr<const topology::NetworkModel> load_platform_network_model(const topology::Platform& platform);

/// The data files of study/ and predict/ analyses, found as every command finds them:
/// read_named_platform, load_platform_network_model and compressor_dirs().
study::DataLookup data_lookup();

}  // namespace ccsim::cli
