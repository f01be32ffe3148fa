#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibrate/compute_model.hpp"
#include "calibrate/compute_pricing.hpp"
#include "cli/commands.hpp"
#include "collective/registry.hpp"
#include "compress/compress_spec.hpp"
#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/parse.hpp"
#include "core/progress.hpp"

namespace ccsim::cli {

namespace {

/// The folders of $`env` (':'-separated), then `fallback`.
std::vector<std::string> data_dirs(const char* env, const char* fallback) {
  std::vector<std::string> dirs;
  if (const char* value = std::getenv(env)) {
    std::stringstream list(value);
    for (std::string dir; std::getline(list, dir, ':');) {
      if (!dir.empty()) dirs.push_back(dir);
    }
  }
  dirs.emplace_back(fallback);
  return dirs;
}

/// Reads a network model; one shipped in this source tree is named relative to it in reports
/// (models/network/NAME.json), so that output does not depend on where the tree lies.
std::shared_ptr<const topology::NetworkModel> read_model(const std::string& path) {
  topology::NetworkModel model = topology::read_network_model(path);
  const std::string_view source_dir = CCSIM_SOURCE_DIR "/";
  if (model.file.rfind(source_dir, 0) == 0) model.file.erase(0, source_dir.size());
  return std::make_shared<const topology::NetworkModel>(std::move(model));
}

/// Reads an accelerator profile; one shipped in this source tree is named relative to it.
std::shared_ptr<const topology::AcceleratorProfile> read_profile(const std::string& path) {
  topology::AcceleratorProfile profile = topology::read_accelerator_profile(path);
  const std::string_view source_dir = CCSIM_SOURCE_DIR "/";
  if (profile.file.rfind(source_dir, 0) == 0) profile.file.erase(0, source_dir.size());
  return std::make_shared<const topology::AcceleratorProfile>(std::move(profile));
}

}  // namespace

std::vector<std::string> compressor_dirs() {
  return data_dirs("CCSIM_COMPRESSORS", CCSIM_SOURCE_DIR "/models/compressors");
}

std::shared_ptr<const topology::NetworkModel> load_platform_network_model(const topology::Platform& platform) {
  if (platform.network_model.empty()) return nullptr;
  std::string path;
  try {
    path = find_data_file(platform.network_model, network_model_dirs(), "network_model", "network model",
                          "network models");
  } catch (const InputError& e) {
    platform.network_model_at.fail(e.detail());  // name the platform file and line
  }
  return read_model(path);
}

study::DataLookup data_lookup() {
  study::DataLookup lookup;
  lookup.platform = read_named_platform;
  lookup.network_model = load_platform_network_model;
  lookup.named_network_model = [](const std::string& name) {
    return read_model(find_data_file(name, network_model_dirs(), "--network-model", "network model", "network models"));
  };
  lookup.compressor = [](const compress::CompressSpec& spec) {
    return compress::load_compressor(spec, compressor_dirs());
  };
  lookup.compute_profile = load_platform_profile;
  lookup.accelerator_profile = read_profile;
  return lookup;
}

std::vector<std::string> network_model_dirs() {
  return data_dirs("CCSIM_NETWORK_MODELS", CCSIM_SOURCE_DIR "/models/network");
}

void add_simulation_flags(CLI::App* sub, SimulationFlags& flags, bool compress) {
  sub->add_option("-p,--platform", flags.platform,
                  "Platform preset name (ccsim platform list) or platform file; default: the platform the trace names");
  const std::vector<std::string_view> compressed = collective::compressed_all_reduce_algorithms();
  sub->add_option("--algo", flags.algorithm,
                  fmt::format("all_reduce algorithm; 'auto' chooses per collective the lowest predicted cost on the "
                              "platform (closed forms; the report's notes list the candidates) ({} and {} need "
                              "--compress)",
                              fmt::join(compressed.begin(), compressed.end() - 1, ", "), compressed.back()))
      ->check(one_of(algorithm_choices(collective::algorithms(collective::Collective::kAllReduce), false)))
      ->capture_default_str();
  if (compress) {
    sub->add_option("--compress", flags.compress,
                    "Compress all_reduce: NAME[:key=value,...] with a model of models/compressors/ (or a file), e.g. "
                    "cuszp:eb=1e-3, szx:eb=1e-4,where=host, int8, onebit, topk:density=0.01; keys eb, bits, density, "
                    "where (accelerator|host), range (value range, for relative bounds). Each distinct all_reduce "
                    "(size, group) is compressed only where the closed forms on its group's links predict it faster "
                    "compressed than plain; a note gives both times and the decision");
    sub->add_option("--compress-min-bytes", flags.compress_min_bytes,
                    "all_reduces smaller than this stay plain (e.g. 1MiB)")
        ->capture_default_str();
    sub->add_flag("--compress-all", flags.compress_all,
                  "With --compress: compress every all_reduce of at least --compress-min-bytes, also where plain is "
                  "predicted faster (the note still gives both times)");
  }
  sub->add_option("--placement", flags.placement,
                  "How ranks map to accelerators: 'auto' (the trace's own placement, else tp,pp,dp), an order of "
                  "tp, pp and dp innermost first (tp,pp,dp keeps tensor-parallel groups inside a node, or on "
                  "neighbouring nodes under one switch where a node cannot hold a group, pipeline stages across "
                  "nodes, data parallel outermost), 'rank-order', or 'map:A,B,...' (rank r on "
                  "accelerator A_r)")
      ->capture_default_str();
  sub->add_flag("--oversubscribe", flags.oversubscribe,
                "Allow more ranks than accelerators: they share accelerators (compute is time-shared, messages between "
                "ranks on one accelerator go through its memory)");
  sub->add_option(
      "--network-model", flags.network_model,
      "Calibrated network model: NAME of models/network/ or a file (size-dependent latency, bandwidth and "
      "per-message overheads per tier); default: the one the platform names, else SimGrid's plain flow model; "
      "'nominal': the plain flow model on the links' own figures, whatever the platform names");
  sub->add_flag("--simgrid-log", flags.simgrid_log, "Show SimGrid's own log on stderr");
  // By default the replay takes the exact shortcuts (engine::ReplayOptions::fast); --full
  // replays message by message to check them, --fast adds the one approximation.
  CLI::Option* full = sub->add_flag(
      "--full", flags.full,
      "Replay message by message and operator by operator, with none of the default shortcuts (to check "
      "them; much slower on large jobs). By default each rank's consecutive compute operators run as one "
      "busy period where the rank is alone on its accelerator, each collective whose messages cannot slow "
      "one another down (links of its own) runs as its critical path, and data-parallel replicas that copy "
      "another replica in simulated time run once: times as the full replay's up to floating-point "
      "rounding (the last digits of a printed time may differ)");
  sub->add_flag("--fast", flags.fast,
                "Also the one approximate shortcut: a ring of more than 16 steps whose messages may share links, "
                "reached by its members together, in 16 coarse steps (not exact where the links' sharing changes "
                "within one; the report notes it)")
      ->excludes(full);
  sub->add_flag("--every-replica", flags.every_replica,
                "Simulate every data-parallel replica, none as a copy of another (to check the copies)")
      ->excludes(full);
  sub->add_option(
         "--compute", flags.compute,
         "Compute durations on the platform: 'keep' (as recorded), 'rescale' (by the ratio of the trace's "
         "hardware peak FLOP/s or memory bandwidth to the platform accelerator's), 'model:FILE' (from a compute "
         "model, ccsim calibrate trace; or an accelerator profile, ccsim calibrate compute, for the operators "
         "without a measured duration); 'auto': keep when the trace was measured on the platform's accelerator "
         "or does not name its hardware, else rescale (and say so). Operators without a measured duration run "
         "as the platform's accelerator profile says (compute_profile), or at the peak rates with 'peak' "
         "(max of FLOPs / peak FLOP/s and bytes / memory bandwidth)")
      ->capture_default_str();
  add_set_flag(sub, flags.settings);
}

// --- what-if settings (--set KEY=VALUE) ---

void add_set_flag(CLI::App* sub, std::vector<std::string>& settings) {
  std::string keys;
  for (const study::WhatIfKey& k : study::what_if_keys()) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", k.key);
  sub->add_option("--set", settings,
                  fmt::format("Change a parameter for this run, KEY=VALUE (repeatable; a value xF multiplies the "
                              "platform's): {} (docs/replay.md, \"What if\")",
                              keys))
      ->take_all()
      ->allow_extra_args(false);
}

std::vector<std::string> setting_notes(const SimulationFlags& flags, const trace::Trace& trace,
                                       const topology::Platform& platform, const engine::Result& result,
                                       const calibrate::ComputeAdjustment& compute) {
  return study::setting_notes(flags, trace, platform, result, compute, data_lookup());
}

void note_settings(const SimulationFlags& flags, const trace::Trace& trace, const topology::Platform& platform,
                   const calibrate::ComputeAdjustment& compute, engine::Result& result) {
  study::note_settings(flags, trace, platform, compute, result, data_lookup());
}

std::vector<std::string> algorithm_choices(const std::vector<std::string_view>& names, bool with_auto) {
  std::vector<std::string> choices;
  if (with_auto) choices.emplace_back("auto");
  choices.insert(choices.end(), names.begin(), names.end());
  return choices;
}

topology::Platform load_platform(const SimulationFlags& flags, const trace::Trace& trace) {
  return study::replay_platform(flags, trace, data_lookup());
}

std::vector<std::string> compute_profile_dirs() {
  return data_dirs("CCSIM_COMPUTE_MODELS", CCSIM_SOURCE_DIR "/models/compute");
}

std::shared_ptr<const topology::AcceleratorProfile> load_platform_profile(const topology::Platform& platform) {
  if (platform.compute_profile.empty()) return nullptr;
  std::string path;
  try {
    path = find_data_file(platform.compute_profile, compute_profile_dirs(), "compute_profile", "accelerator profile",
                          "accelerator profiles");
  } catch (const InputError& e) {
    platform.compute_profile_at.fail(e.detail());  // name the platform file and line
  }
  return read_profile(path);
}

calibrate::ComputeAdjustment apply_compute_flag(const SimulationFlags& flags, trace::Trace& trace,
                                                const topology::Platform& platform, engine::ReplayOptions& options) {
  return study::apply_compute(flags, trace, platform, options, data_lookup());
}

engine::ReplayOptions replay_options(const SimulationFlags& flags, const topology::Platform& platform) {
  return study::replay_options(flags, platform, data_lookup());
}

}  // namespace ccsim::cli

namespace ccsim::cli {

report::RowKey rows_key(const std::string& rows) {
  if (rows == "auto") return report::RowKey::kAuto;
  return rows == "name" ? report::RowKey::kName : rows == "kind" ? report::RowKey::kKind : report::RowKey::kOperator;
}

std::vector<std::string> rows_choices() { return {"auto", "operator", "name", "kind"}; }

}  // namespace ccsim::cli
