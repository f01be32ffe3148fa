#include "study/replay_setup.hpp"

#include <algorithm>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "calibrate/compute_pricing.hpp"
#include "compress/compress_spec.hpp"
#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/parse.hpp"
#include "core/progress.hpp"
#include "study/what_if.hpp"

namespace ccsim::study {
namespace {

/// True when the JSON file at `path` says it is an accelerator profile ("format").
bool is_profile_file(const std::string& path) {
  const json::Value root = json::parse_file(path);
  const json::Value* format = root.is_object() ? root.find("format") : nullptr;
  return format != nullptr && format->is_string() && format->text() == topology::kAcceleratorProfileFormat;
}

/// The calibrated network model of --network-model, else the platform's, else none
/// (--network-model nominal: the links' own figures, whatever the platform names).
std::shared_ptr<const topology::NetworkModel> network_model(const ReplaySettings& settings,
                                                            const topology::Platform& platform,
                                                            const DataLookup& lookup) {
  if (settings.network_model == "nominal") return nullptr;
  if (!settings.network_model.empty()) return lookup.named_network_model(settings.network_model);
  return lookup.network_model(platform);
}

}  // namespace

ReplaySettings with_settings(const ReplaySettings& settings) {
  const WhatIf what_if = parse_what_if(settings.settings);
  ReplaySettings out = settings;
  if (what_if.compress) out.compress = *what_if.compress == "none" ? std::string() : *what_if.compress;
  if (what_if.compress_min_bytes) out.compress_min_bytes = std::to_string(*what_if.compress_min_bytes);
  if (what_if.algorithm) out.algorithm = *what_if.algorithm;
  return out;
}

topology::Platform replay_platform(const ReplaySettings& settings, const trace::Trace& trace,
                                   const DataLookup& lookup) {
  const std::string name = settings.platform.empty() ? trace.platform : settings.platform;
  if (name.empty())
    throw InputError(trace.source, 0, "platform", "the trace names no platform; pass --platform NAME|FILE");
  return lookup.platform(name, parse_what_if(settings.settings).platform);
}

engine::ReplayOptions replay_options(const ReplaySettings& given, const topology::Platform& platform,
                                     const DataLookup& lookup) {
  const ReplaySettings settings = with_settings(given);
  engine::ReplayOptions options;
  options.compute_scale = parse_what_if(settings.settings).compute_scale;
  options.network.calibrated = network_model(settings, platform, lookup);
  options.all_reduce_algorithm = settings.algorithm;
  options.placement = settings.placement;
  options.oversubscribe = settings.oversubscribe;
  options.simgrid_log = settings.simgrid_log;
  options.fast = !settings.full;
  options.coarse_rings = settings.fast;
  options.progress = progress_wanted();
  options.fold_replicas = !settings.every_replica;
  if (!settings.compress.empty()) {
    const compress::CompressSpec spec = compress::parse_compress_spec(settings.compress);
    options.compression.model = std::make_shared<const compress::CompressorModel>(lookup.compressor(spec));
    options.compression.query = spec.query;
    options.compression.min_bytes =
        parse_bytes_or_throw(settings.compress_min_bytes, "command line", "--compress-min-bytes");
    options.compression.all = settings.compress_all;
  } else if (settings.compress_all) {
    throw InputError("command line", 0, "--compress-all", "expected a compressor too (--compress NAME), got none");
  }
  return options;
}

calibrate::ComputeAdjustment apply_compute(const ReplaySettings& settings, trace::Trace& trace,
                                           const topology::Platform& platform, engine::ReplayOptions& options,
                                           const DataLookup& lookup) {
  calibrate::ComputeMode mode = calibrate::ComputeMode::kAuto;
  std::optional<calibrate::ComputeModel> model;
  std::shared_ptr<const topology::AcceleratorProfile> profile;
  bool peak = false;
  const std::string& compute = settings.compute;
  if (compute == "keep") {
    mode = calibrate::ComputeMode::kKeep;
  } else if (compute == "rescale") {
    mode = calibrate::ComputeMode::kRescale;
  } else if (compute == "peak") {
    peak = true;
  } else if (compute.rfind("model:", 0) == 0 && compute.size() > 6) {
    const std::string file = compute.substr(6);
    if (is_profile_file(file)) {
      profile = lookup.accelerator_profile(file);
    } else {
      mode = calibrate::ComputeMode::kModel;
      model = calibrate::read_compute_model(file);
    }
  } else if (compute != "auto") {
    throw InputError("command line", 0, "--compute",
                     fmt::format("expected auto, keep, rescale, peak or model:FILE, got \"{}\"", compute));
  }
  if (!peak && !profile) profile = lookup.compute_profile(platform);
  const std::string no_profile =
      peak ? "--compute peak" : fmt::format("platform {} names no compute_profile", platform.name);
  // compute.scale acts once, in the replay (measured durations / F, and the platform's FLOP rate
  // x F for operators timed by it): durations rescaled here are for the FLOP rate without it.
  const double speedup = parse_what_if(settings.settings).compute_scale;
  topology::AcceleratorSpec accelerator = platform.network.accelerator();
  accelerator.flops /= speedup;
  calibrate::ComputePricing pricing = calibrate::price_compute(trace, accelerator, platform.name, mode,
                                                               model ? &*model : nullptr, profile, speedup, no_profile);
  options.compute = pricing.adjustment.summary;
  options.compute_cost = std::move(pricing.cost);
  return pricing.adjustment;
}

std::vector<std::string> setting_notes(const ReplaySettings& settings, const trace::Trace& trace,
                                       const topology::Platform& platform, const engine::Result& result,
                                       const calibrate::ComputeAdjustment& compute, const DataLookup& lookup) {
  std::vector<std::string> notes =
      idle_settings(settings.settings, run_facts(trace, platform, result, compute.flop_bound + compute.memory_bound));
  const bool bandwidth = std::any_of(settings.settings.begin(), settings.settings.end(), [](const std::string& s) {
    return s.starts_with("intra.bandwidth=") || s.starts_with("inter.bandwidth=");
  });
  if (bandwidth) {  // against the platform without --set (read again: a bandwidth setting is rare)
    ReplaySettings unset = settings;
    unset.settings.clear();
    const topology::Platform baseline = replay_platform(unset, trace, lookup);
    const int nodes = result.nodes_used > 0 ? result.nodes_used : platform.network.node_count();
    for (std::string& bound :
         bottleneck_notes(settings.settings, baseline.network, platform.network, nodes, trace.world_size > nodes)) {
      notes.push_back(std::move(bound));
    }
  }
  return notes;
}

void note_settings(const ReplaySettings& settings, const std::vector<std::string>& setting_notes,
                   engine::Result& result) {
  std::vector<std::string> notes;
  for (const std::string& setting : settings.settings) notes.push_back("set: " + setting);
  for (const std::string& note : setting_notes) notes.push_back("set: " + note);
  result.notes.insert(result.notes.begin(), notes.begin(), notes.end());
}

}  // namespace ccsim::study
