// The data folders of the CLI (study/data_folders.hpp) on the repository's own data: the
// environment's folders first, then the source tree's; files of the source tree named relative
// to it; names that are not found refused at the platform file's line.
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "compress/compress_spec.hpp"
#include "study/data_folders.hpp"
#include "support/error_of.hpp"

using namespace ccsim;

namespace {

const std::string kRoot = CCSIM_SOURCE_DIR;

/// Sets $`name` to `value` for the life of the object, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("the data folders: the environment's, ':'-separated, then the source tree's", "[study]") {
  const ScopedEnv platforms("CCSIM_PLATFORMS", "/a::/b");
  const study::DataFolders folders = study::data_folders("/src");
  CHECK(folders.platforms == std::vector<std::string>{"/a", "/b", "/src/platforms"});
  CHECK(folders.network_models.back() == "/src/models/network");
  CHECK(folders.compressors.back() == "/src/models/compressors");
  CHECK(folders.compute_profiles.back() == "/src/models/compute");
  CHECK(folders.source_dir == "/src");
}

TEST_CASE("a platform preset by name in the environment's folder, before the source tree's", "[study]") {
  const ScopedEnv platforms("CCSIM_PLATFORMS", kRoot + "/tests/data");
  const study::DataFolders folders = study::data_folders(kRoot);
  const study::DataLookup lookup = study::folder_lookup(folders);
  CHECK(lookup.platform_file("tiny") == kRoot + "/tests/data/tiny.json");
  CHECK(lookup.platform_file("local") == kRoot + "/platforms/local.json");
  const topology::Platform tiny = lookup.platform("tiny", {});
  CHECK(tiny.name == "tiny");
  CHECK(tiny.network.node_count() == 4);
  CHECK_THAT(test::message_of([&] { lookup.platform_file("tiny-typo"); }), Catch::Matchers::Contains("tiny-typo"));
}

TEST_CASE("the network model a platform names, named relative to the source tree", "[study]") {
  const study::DataFolders folders = study::data_folders(kRoot);
  const study::DataLookup lookup = study::folder_lookup(folders);
  topology::Platform local = study::read_platform_in(folders, "local");
  const auto model = lookup.network_model(local);
  REQUIRE(model != nullptr);
  CHECK(model->name == "local-tcp");
  CHECK(model->file == "models/network/local-tcp.json");
  CHECK(lookup.named_network_model("local-tcp")->file == "models/network/local-tcp.json");
  // A platform without a model, or a profile: none.
  const topology::Platform tiny = study::read_platform_in(folders, kRoot + "/tests/data/tiny.json");
  CHECK(lookup.network_model(tiny) == nullptr);
  CHECK(lookup.compute_profile(tiny) == nullptr);
  // A model name that is not found: the platform file's line says where it was named.
  local.network_model = "local-tpc";
  CHECK_THAT(test::message_of([&] { lookup.network_model(local); }),
             Catch::Matchers::StartsWith(local.network_model_at.file + ":" +
                                         std::to_string(local.network_model_at.line) + ":"));
}

TEST_CASE("the compressor models of the source tree", "[study]") {
  const study::DataLookup lookup = study::folder_lookup(study::data_folders(kRoot));
  const compress::CompressorModel szx = lookup.compressor(compress::parse_compress_spec("szx:eb=1e-3"));
  CHECK(szx.name() == "szx");
}
