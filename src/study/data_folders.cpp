#include "study/data_folders.hpp"

#include <cstdlib>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "compress/compress_spec.hpp"
#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "core/phase.hpp"

namespace ccsim::study {
namespace {

/// The folders of $`env` (':'-separated), then `fallback`.
std::vector<std::string> folders_of(const char* env, std::string fallback) {
  std::vector<std::string> dirs;
  if (const char* value = std::getenv(env)) {
    std::stringstream list(value);
    for (std::string dir; std::getline(list, dir, ':');) {
      if (!dir.empty()) dirs.push_back(dir);
    }
  }
  dirs.push_back(std::move(fallback));
  return dirs;
}

/// `file` without the leading `source_dir`/ when it lies in the source tree.
void relative_to_source(const std::string& source_dir, std::string& file) {
  const std::string prefix = source_dir + "/";
  if (!source_dir.empty() && file.rfind(prefix, 0) == 0) file.erase(0, prefix.size());
}

std::shared_ptr<const topology::NetworkModel> read_model(const DataFolders& folders, const std::string& path) {
  topology::NetworkModel model = topology::read_network_model(path);
  relative_to_source(folders.source_dir, model.file);
  return std::make_shared<const topology::NetworkModel>(std::move(model));
}

std::shared_ptr<const topology::AcceleratorProfile> read_profile(const DataFolders& folders, const std::string& path) {
  topology::AcceleratorProfile profile = topology::read_accelerator_profile(path);
  relative_to_source(folders.source_dir, profile.file);
  return std::make_shared<const topology::AcceleratorProfile>(std::move(profile));
}

}  // namespace

DataFolders data_folders(const std::string& source_dir) {
  DataFolders folders;
  folders.platforms = folders_of("CCSIM_PLATFORMS", source_dir + "/platforms");
  folders.network_models = folders_of("CCSIM_NETWORK_MODELS", source_dir + "/models/network");
  folders.compressors = folders_of("CCSIM_COMPRESSORS", source_dir + "/models/compressors");
  folders.compute_profiles = folders_of("CCSIM_COMPUTE_MODELS", source_dir + "/models/compute");
  folders.source_dir = source_dir;
  return folders;
}

topology::Platform read_platform_in(const DataFolders& folders, const std::string& name,
                                    const topology::PlatformOverrides& overrides) {
  const std::string path = topology::find_platform(name, folders.platforms);
  Phase phase(fmt::format("building the platform {}", path),
              "reduce the platform's size (nodes, levels, groups, routers)");
  return topology::read_platform(path, overrides);
}

std::shared_ptr<const topology::NetworkModel> platform_network_model(const DataFolders& folders,
                                                                     const topology::Platform& platform) {
  if (platform.network_model.empty()) return nullptr;
  std::string path;
  try {
    path = find_data_file(platform.network_model, folders.network_models, "network_model", "network model",
                          "network models");
  } catch (const InputError& e) {
    platform.network_model_at.fail(e.detail());  // name the platform file and line
  }
  return read_model(folders, path);
}

std::shared_ptr<const topology::AcceleratorProfile> platform_compute_profile(const DataFolders& folders,
                                                                             const topology::Platform& platform) {
  if (platform.compute_profile.empty()) return nullptr;
  std::string path;
  try {
    path = find_data_file(platform.compute_profile, folders.compute_profiles, "compute_profile", "accelerator profile",
                          "accelerator profiles");
  } catch (const InputError& e) {
    platform.compute_profile_at.fail(e.detail());  // name the platform file and line
  }
  return read_profile(folders, path);
}

DataLookup folder_lookup(const DataFolders& folders) {
  DataLookup lookup;
  lookup.platform = [folders](const std::string& name, const topology::PlatformOverrides& overrides) {
    return read_platform_in(folders, name, overrides);
  };
  lookup.platform_file = [folders](const std::string& name) {
    return topology::find_platform(name, folders.platforms);
  };
  lookup.network_model = [folders](const topology::Platform& platform) {
    return platform_network_model(folders, platform);
  };
  lookup.named_network_model = [folders](const std::string& name) {
    return read_model(
        folders, find_data_file(name, folders.network_models, "--network-model", "network model", "network models"));
  };
  lookup.compressor = [folders](const compress::CompressSpec& spec) {
    return compress::load_compressor(spec, folders.compressors);
  };
  lookup.compute_profile = [folders](const topology::Platform& platform) {
    return platform_compute_profile(folders, platform);
  };
  lookup.accelerator_profile = [folders](const std::string& file) { return read_profile(folders, file); };
  return lookup;
}

}  // namespace ccsim::study
