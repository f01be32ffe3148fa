#pragma once

#include <functional>
#include <memory>
#include <string>

#include "compress/compress_spec.hpp"
#include "compress/compressor_model.hpp"
#include "topology/accelerator_profile.hpp"
#include "topology/network_model.hpp"
#include "topology/platform.hpp"

namespace ccsim::study {

/// Where an analysis finds the data files its inputs name: platforms, network models,
/// compressor models and accelerator profiles (the CLI's data folders, cli/simulation_flags.hpp;
/// files in a test). Each function throws InputError for a name it cannot resolve or a file it
/// cannot read; an analysis calls only those its inputs need.
struct DataLookup {
  /// The platform preset NAME or platform FILE, read and built with `overrides` (--set) applied.
  std::function<topology::Platform(const std::string& name, const topology::PlatformOverrides& overrides)> platform;
  /// The file of the platform preset NAME or platform FILE, found but neither read nor built.
  std::function<std::string(const std::string& name)> platform_file;
  /// The calibrated network model `platform` names (its `network_model`), nullptr when none.
  std::function<std::shared_ptr<const topology::NetworkModel>(const topology::Platform& platform)> network_model;
  /// The calibrated network model NAME (of the network models' folders) or FILE: --network-model.
  std::function<std::shared_ptr<const topology::NetworkModel>(const std::string& name)> named_network_model;
  /// The compressor model a parsed --compress SPEC names.
  std::function<compress::CompressorModel(const compress::CompressSpec& spec)> compressor;
  /// The accelerator profile `platform` names (its `compute_profile`), nullptr when none.
  std::function<std::shared_ptr<const topology::AcceleratorProfile>(const topology::Platform& platform)>
      compute_profile;
  /// The accelerator profile in FILE (--compute model:FILE).
  std::function<std::shared_ptr<const topology::AcceleratorProfile>(const std::string& file)> accelerator_profile;
};

}  // namespace ccsim::study
