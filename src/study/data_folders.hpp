#pragma once

#include <memory>
#include <string>
#include <vector>

#include "study/data_lookup.hpp"
#include "topology/accelerator_profile.hpp"
#include "topology/network_model.hpp"
#include "topology/platform.hpp"

namespace ccsim::study {

/// The folders searched for each kind of data file, in order: a name is the first NAME.json
/// found, a path (with '/' or ending in .json) is read as given.
struct DataFolders {
  std::vector<std::string> platforms;         ///< $CCSIM_PLATFORMS, then SOURCE/platforms
  std::vector<std::string> network_models;    ///< $CCSIM_NETWORK_MODELS, then SOURCE/models/network
  std::vector<std::string> compressors;       ///< $CCSIM_COMPRESSORS, then SOURCE/models/compressors
  std::vector<std::string> compute_profiles;  ///< $CCSIM_COMPUTE_MODELS, then SOURCE/models/compute
  /// The source tree: a network model or accelerator profile read from under it is named
  /// relative to it (models/network/NAME.json), so that output does not depend on where it lies.
  std::string source_dir;
};

/// The folders of the environment variables (':'-separated, empty entries skipped), then those
/// of the source tree `source_dir`.
DataFolders data_folders(const std::string& source_dir);

/// The platform preset NAME (in `folders.platforms`) or platform FILE, read and built with
/// `overrides` applied (--set); the process's phase says which platform is being built.
topology::Platform read_platform_in(const DataFolders& folders, const std::string& name,
                                    const topology::PlatformOverrides& overrides = {});

/// The calibrated network model `platform` names (its `network_model`), nullptr when none; a
/// name that is not found is an InputError at the platform file's line.
std::shared_ptr<const topology::NetworkModel> platform_network_model(const DataFolders& folders,
                                                                     const topology::Platform& platform);

/// The accelerator profile `platform` names (its `compute_profile`), nullptr when none; a name
/// that is not found is an InputError at the platform file's line.
std::shared_ptr<const topology::AcceleratorProfile> platform_compute_profile(const DataFolders& folders,
                                                                             const topology::Platform& platform);

/// Every function of DataLookup over `folders`: what each command of the CLI searches.
DataLookup folder_lookup(const DataFolders& folders);

}  // namespace ccsim::study
