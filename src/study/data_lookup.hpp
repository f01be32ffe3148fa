#pragma once

#include <functional>
#include <memory>
#include <string>

#include "compress/compress_spec.hpp"
#include "compress/compressor_model.hpp"
#include "topology/network_model.hpp"
#include "topology/platform.hpp"

namespace ccsim::study {

/// Where an analysis finds the data files its inputs name: platforms, network models and
/// compressor models (the CLI's data folders, cli/simulation_flags.hpp; files in a test).
/// Each function throws InputError for a name it cannot resolve or a file it cannot read.
struct DataLookup {
  /// The platform preset NAME or platform FILE, read and built.
  std::function<topology::Platform(const std::string& name)> platform;
  /// The calibrated network model `platform` names (its `network_model`), nullptr when none.
  std::function<std::shared_ptr<const topology::NetworkModel>(const topology::Platform& platform)> network_model;
  /// The compressor model a parsed --compress SPEC names.
  std::function<compress::CompressorModel(const compress::CompressSpec& spec)> compressor;
};

}  // namespace ccsim::study
