// How a trace is set up for a replay (study/replay_setup.hpp) with the platforms, models and
// traces of the repository: the platform, the engine's options, --compute and the notes on
// --set, each data file found through the lookup (counted, to show what is read when).
#include <map>
#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include "compress/compress_spec.hpp"
#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "study/measured_result.hpp"
#include "study/replay_setup.hpp"
#include "trace/native_reader.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;

namespace {

const std::string kRoot = CCSIM_SOURCE_DIR;

/// The repository's data folders; `reads` counts each function's calls by name.
study::DataLookup shipped(std::map<std::string, int>& reads) {
  study::DataLookup l;
  l.platform = [&reads](const std::string& name, const topology::PlatformOverrides& overrides) {
    ++reads["platform"];
    return topology::read_platform(topology::find_platform(name, {kRoot + "/platforms"}), overrides);
  };
  auto network = [&reads](const std::string& name) {
    ++reads["network model"];
    return std::make_shared<const topology::NetworkModel>(topology::read_network_model(
        find_data_file(name, {kRoot + "/models/network"}, "--network-model", "network model", "network models")));
  };
  l.network_model = [network](const topology::Platform& p) -> std::shared_ptr<const topology::NetworkModel> {
    return p.network_model.empty() ? nullptr : network(p.network_model);
  };
  l.named_network_model = network;
  l.compressor = [&reads](const compress::CompressSpec& spec) {
    ++reads["compressor"];
    return compress::load_compressor(spec, {kRoot + "/models/compressors"});
  };
  auto profile = [&reads](const std::string& file) {
    ++reads["profile"];
    return std::make_shared<const topology::AcceleratorProfile>(topology::read_accelerator_profile(file));
  };
  l.compute_profile = [profile](const topology::Platform& p) -> std::shared_ptr<const topology::AcceleratorProfile> {
    if (p.compute_profile.empty()) return nullptr;
    return profile(find_data_file(p.compute_profile, {kRoot + "/models/compute"}, "compute_profile",
                                  "accelerator profile", "accelerator profiles"));
  };
  l.accelerator_profile = profile;
  return l;
}

trace::Trace profile_trace() { return trace::read_native(kRoot + "/traces/qu2025-profile.json"); }

}  // namespace

TEST_CASE("the compressor and algorithm settings of --set replace the options'", "[study]") {
  study::ReplaySettings s;
  s.compress = "int8";
  s.settings = {"compress=cuszp:eb=1e-3", "algo=ring", "compress.min_bytes=1MiB"};
  const study::ReplaySettings w = study::with_settings(s);
  CHECK(w.compress == "cuszp:eb=1e-3");
  CHECK(w.algorithm == "ring");
  CHECK(w.compress_min_bytes == "1048576");
  s.settings = {"compress=none"};
  CHECK(study::with_settings(s).compress.empty());
  s.settings = {"nodes=2"};  // a platform setting leaves the options as they are
  CHECK(study::with_settings(s).compress == "int8");
}

TEST_CASE("a replay's platform is the one given, else the trace's, with the settings of --set", "[study]") {
  std::map<std::string, int> reads;
  const study::DataLookup lookup = shipped(reads);
  trace::Trace t = profile_trace();  // names qu2025-fit
  study::ReplaySettings s;
  CHECK(study::replay_platform(s, t, lookup).name == "qu2025-fit");
  s.platform = "tianhe-2a";
  s.settings = {"nodes=4"};
  const topology::Platform p = study::replay_platform(s, t, lookup);
  CHECK(p.name == "tianhe-2a");
  CHECK(p.network.node_count() == 4);
  t.platform.clear();
  s.platform.clear();
  CHECK_THROWS_WITH(study::replay_platform(s, t, lookup),
                    t.source + ": field 'platform': the trace names no platform; pass --platform NAME|FILE");
  CHECK(reads["platform"] == 2);
}

TEST_CASE("the engine's options follow the settings, and read only the models they name", "[study]") {
  std::map<std::string, int> reads;
  const study::DataLookup lookup = shipped(reads);
  study::ReplaySettings s;
  const topology::Platform local = study::replay_platform(s, profile_trace(), lookup);  // qu2025-fit
  engine::ReplayOptions o = study::replay_options(s, local, lookup);
  CHECK(o.fast);
  CHECK_FALSE(o.coarse_rings);
  CHECK(o.fold_replicas);
  CHECK(o.all_reduce_algorithm == "auto");
  CHECK_FALSE(o.compression.enabled());
  CHECK(o.network.calibrated == nullptr);  // qu2025-fit names no network model
  CHECK(reads["compressor"] == 0);
  s.fast = true;
  s.every_replica = true;
  s.compress = "cuszp:eb=1e-3";
  s.compress_min_bytes = "1MiB";
  s.network_model = "local-tcp";
  o = study::replay_options(s, local, lookup);
  CHECK(o.coarse_rings);
  CHECK_FALSE(o.fold_replicas);
  CHECK(o.compression.enabled());
  CHECK(o.compression.min_bytes == 1 << 20);
  REQUIRE(o.network.calibrated);
  CHECK(o.network.calibrated->name == "local-tcp");
  CHECK(reads["compressor"] == 1);
  // "nominal": no model, whatever the platform names.
  s.network_model = "nominal";
  const topology::Platform h100 = lookup.platform("dgx-h100-superpod", {});
  CHECK(study::replay_options(s, h100, lookup).network.calibrated == nullptr);
  s.network_model.clear();
  CHECK(study::replay_options(s, h100, lookup).network.calibrated->name == "dgx-h100-nccl");
  s.compress.clear();
  s.compress_all = true;
  CHECK_THROWS_WITH(study::replay_options(s, h100, lookup),
                    "command line: field '--compress-all': expected a compressor too (--compress NAME), got none");
}

TEST_CASE("compute is priced as --compute says, with the platform's profile unless told otherwise", "[study]") {
  std::map<std::string, int> reads;
  const study::DataLookup lookup = shipped(reads);
  study::ReplaySettings s;
  s.platform = "tianhe-2a";  // names the accelerator profile tianhe-2a
  trace::Trace t = profile_trace();
  const topology::Platform p = study::replay_platform(s, t, lookup);
  engine::ReplayOptions o = study::replay_options(s, p, lookup);
  s.compute = "keep";
  const calibrate::ComputeAdjustment kept = study::apply_compute(s, t, p, o, lookup);
  CHECK(kept.factor == 1);
  CHECK(o.compute == kept.summary);
  CHECK(o.compute_cost != nullptr);
  CHECK(reads["profile"] == 1);
  s.compute = "peak";
  study::apply_compute(s, t, p, o, lookup);
  CHECK(reads["profile"] == 1);                                // the peak rates: no profile read
  s.compute = "model:" + kRoot + "/models/compute/h100.json";  // an accelerator profile given as a file
  study::apply_compute(s, t, p, o, lookup);
  CHECK(reads["profile"] == 2);
  s.compute = "fast";
  CHECK_THROWS_WITH(study::apply_compute(s, t, p, o, lookup),
                    "command line: field '--compute': expected auto, keep, rescale, peak or model:FILE, got \"fast\"");
}

TEST_CASE("the notes on --set name the settings that had nothing to act on", "[study]") {
  std::map<std::string, int> reads;
  const study::DataLookup lookup = shipped(reads);
  study::ReplaySettings s;
  s.settings = {"compress.min_bytes=1MiB"};
  const trace::Trace t = profile_trace();
  const topology::Platform p = study::replay_platform(s, t, lookup);
  engine::Result r = study::measured_result(t);
  const std::vector<std::string> notes = study::setting_notes(s, t, p, r, {}, lookup);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Contains("compress.min_bytes=1MiB: no effect: no all_reduce was compressed"));
  study::note_settings(s, notes, r);
  REQUIRE(r.notes.size() >= 2);
  CHECK(r.notes[0] == "set: compress.min_bytes=1MiB");
  CHECK(r.notes[1] == "set: " + notes[0]);
}
