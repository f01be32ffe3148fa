// The collective study (study/collective_study.hpp): every all_reduce algorithm's closed form on
// the first ranks of a platform, with the models the data lookup gives. On the tiny platform (4
// nodes of 2 accelerators: intra links 1 us and 10 GB/s to the node's hub, NICs 5 us and 1 GB/s,
// reductions at 10 GB/s) the times follow from the textbook alpha-beta-gamma formulas.
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "compress/compress_spec.hpp"
#include "study/collective_study.hpp"
#include "study/sweep.hpp"
#include "support/error_of.hpp"
#include "topology/network_model.hpp"
#include "topology/platform.hpp"

using namespace ccsim;
using Catch::Matchers::StartsWith;

namespace {

const std::string kTiny = CCSIM_SOURCE_DIR "/tests/data/tiny.json";
constexpr std::uint64_t k64MiB = 64ull << 20;

/// A lookup of no network model and the shipped compressor models; `calls` counts its uses.
study::DataLookup lookup(int* calls = nullptr) {
  study::DataLookup l;
  l.network_model = [calls](const topology::Platform&) {
    if (calls) ++*calls;
    return std::shared_ptr<const topology::NetworkModel>();
  };
  l.compressor = [calls](const compress::CompressSpec& spec) {
    if (calls) ++*calls;
    return compress::load_compressor(spec, {CCSIM_SOURCE_DIR "/models/compressors"});
  };
  return l;
}

double time_of(const study::CollectiveStudy& s, const std::string& algorithm) {
  for (const collective::Prediction& p : s.predictions) {
    if (p.algorithm == algorithm) return p.time_s;
  }
  return -1;
}

}  // namespace

TEST_CASE("the collective study of two ranks of one node: the ring and recursive doubling by hand", "[study]") {
  const topology::Platform tiny = topology::read_platform(kTiny);
  const study::CollectiveStudy s = study::study_collective(tiny, "", 2, k64MiB, DType::kF32, lookup());
  CHECK(s.nodes == 1);
  CHECK(s.network_model.empty());
  const double n = k64MiB, alpha = 2e-6, beta = 1 / 1e10, gamma = 1 / 1e10;  // two intra links, 1 us each
  // ring: 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma
  CHECK(time_of(s, "ring") == Approx(2 * alpha + n * beta + n / 2 * gamma));
  // recursive doubling: log2(p) steps of the whole buffer, each reduced
  CHECK(time_of(s, "recursive-doubling") == Approx(alpha + n * beta + n * gamma));
  CHECK(time_of(s, "hierarchical") == -1);  // needs two nodes of two ranks
  CHECK(study::describe_model(s) ==
        "closed form of each schedule; no contention except NICs shared by the ranks of a node");
}

TEST_CASE("the collective study of four ranks on two nodes: the ring on the inter-node links", "[study]") {
  const topology::Platform tiny = topology::read_platform(kTiny);
  const study::CollectiveStudy s = study::study_collective(tiny, "", 4, k64MiB, DType::kF32, lookup());
  CHECK(s.nodes == 2);
  // accelerator, hub, NIC, switch, NIC, hub, accelerator: 1 + 5 + 5 + 1 us, at the NICs' 1 GB/s
  const double n = k64MiB, alpha = 12e-6, beta = 1 / 1e9, gamma = 1 / 1e10;
  CHECK(time_of(s, "ring") == Approx(6 * alpha + 1.5 * n * beta + 0.75 * n * gamma));
  CHECK(time_of(s, "hierarchical") > 0);
  CHECK(study::all_reduce_bus_bandwidth_Bps(k64MiB, 0.5, 4) == Approx(n / 0.5 * 1.5));
}

TEST_CASE("the collective study refuses more ranks than accelerators before it loads a model", "[study]") {
  const topology::Platform tiny = topology::read_platform(kTiny);
  int calls = 0;
  CHECK(test::message_of([&] { study::study_collective(tiny, "szx", 9, k64MiB, DType::kF32, lookup(&calls)); }) ==
        "command line: field '--ranks': platform \"tiny\" has 8 accelerators, fewer than 9 ranks");
  CHECK(calls == 0);
  // With a compressor, the compressed algorithms join the plain ones.
  const study::CollectiveStudy s = study::study_collective(tiny, "szx:eb=1e-3", 4, k64MiB, DType::kF32, lookup(&calls));
  CHECK(calls == 2);  // the network model, then the compressor
  CHECK(time_of(s, "compressed-ring") > 0);
}

TEST_CASE("a collective's buffer is whole elements, one element to 1 PiB", "[study]") {
  auto error = [](std::uint64_t bytes, DType dtype) {
    return test::message_of([&] { study::check_collective_bytes(bytes, "B", dtype, "s.json", 3, "bytes"); });
  };
  CHECK(error(6, DType::kF32) ==
        "s.json:3: field 'bytes': expected a whole number of fp32 elements (4 bytes each), "
        "got \"B\"");
  CHECK(error(2, DType::kF32) ==
        "s.json:3: field 'bytes': expected 4 to 1125899906842624 bytes (one fp32 element "
        "to 1 PiB), got \"B\"");
  CHECK(error(6, DType::kF16) == "no error");
}

TEST_CASE("whatif --collective's size is checked ranks first, then the dtype, then the buffer", "[study]") {
  const study::CollectiveSize size = study::parse_collective_size(512, "bf16", "256MiB");
  CHECK(size.ranks == 512);
  CHECK(size.dtype == DType::kBF16);
  CHECK(size.bytes == 256u << 20);
  auto error = [](int ranks, const std::string& dtype, const std::string& bytes) {
    return test::message_of([&] { study::parse_collective_size(ranks, dtype, bytes); });
  };
  CHECK(error(1, "fp64", "x") ==
        fmt::format("command line: field '--ranks': expected 2 to {} ranks, got \"1\"", study::kMaxCollectiveRanks));
  CHECK(error(2, "fp65", "x") ==
        fmt::format("command line: field '--dtype': expected one of {}, got \"fp65\"", dtype_choices()));
  CHECK_THAT(error(2, "fp64", "x"), StartsWith("command line: field '--bytes': "));
  CHECK(error(2, "fp64", "12") ==
        "command line: field '--bytes': expected a whole number of fp64 elements (8 bytes each), got \"12\"");
}

TEST_CASE("auto's choice names the fastest algorithm and its margin over the next best", "[study]") {
  std::vector<collective::Prediction> predictions(3);
  predictions[0].algorithm = "ring";
  predictions[0].time_s = 0.052777;
  predictions[1].algorithm = "hierarchical";
  predictions[1].time_s = 0.066678;
  predictions[2].algorithm = "binomial-tree";
  predictions[2].time_s = 0.2;
  const study::AutoChoice c = study::auto_choice(predictions);
  CHECK(c.line() ==
        "auto chooses ring: the lowest predicted time, 52.777 ms; 1.263x faster than hierarchical (66.678 ms), the "
        "next best");
  CHECK(c.mark("ring") == " (auto)");
  CHECK(c.mark("hierarchical").empty());
  predictions.resize(1);
  CHECK(study::auto_choice(predictions).line() ==
        "auto chooses ring: the lowest predicted time, 52.777 ms (the only algorithm that applies)");
}

TEST_CASE("whatif --collective pairs the algorithms of both runs, the what-if's first", "[study]") {
  const topology::Platform tiny = topology::read_platform(kTiny);
  const study::CollectiveStudy plain = study::study_collective(tiny, "", 4, k64MiB, DType::kF32, lookup());
  const study::CollectiveStudy packed =
      study::study_collective(tiny, "cuszp:eb=1e-3", 4, k64MiB, DType::kF32, lookup());
  // Alone, the baseline's algorithms in its order, each its own prediction.
  const std::vector<study::PairedPrediction> alone = study::pair_predictions(plain, nullptr);
  REQUIRE(alone.size() == plain.predictions.size());
  for (std::size_t i = 0; i < alone.size(); ++i) {
    CHECK(alone[i].algorithm == plain.predictions[i].algorithm);
    CHECK(&alone[i].shown() == &plain.predictions[i]);
    CHECK(alone[i].what_if == nullptr);
  }
  // Paired: the what-if's algorithms in its order, then the baseline's others; each prediction once.
  const std::vector<study::PairedPrediction> rows = study::pair_predictions(plain, &packed);
  std::size_t only_plain = 0;
  for (const collective::Prediction& p : plain.predictions) only_plain += time_of(packed, p.algorithm) < 0;
  REQUIRE(rows.size() == packed.predictions.size() + only_plain);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const study::PairedPrediction& r = rows[i];
    if (i < packed.predictions.size()) {
      CHECK(r.what_if == &packed.predictions[i]);
      CHECK(&r.shown() == r.what_if);
    } else {
      CHECK(r.what_if == nullptr);
    }
    const double base = time_of(plain, r.algorithm);
    CHECK((r.baseline == nullptr ? -1 : r.baseline->time_s) == base);
  }
  CHECK(rows.size() > packed.predictions.size());  // the compressor's list lacks some plain algorithm
}

TEST_CASE("whatif --collective notes the settings that cannot act on one all_reduce", "[study]") {
  const topology::Platform tiny = topology::read_platform(kTiny);
  // Two ranks of one node: nothing crosses the network between nodes, every algorithm is
  // predicted, and nothing is compressed.
  const std::vector<std::string> notes =
      study::collective_notes({"inter.bandwidth=x2", "algo=ring", "compress.min_bytes=1MiB"}, 2, false, tiny, tiny, 1);
  REQUIRE(notes.size() == 3);
  CHECK(notes[0].starts_with("inter.bandwidth=x2: no effect: it changes the network between nodes"));
  CHECK(notes[1] == "algo=ring: no effect: every algorithm is predicted, and auto's choice is said");
  CHECK(notes[2] ==
        "compress.min_bytes=1MiB: no effect: no all_reduce was compressed (--compress NAME, or --set compress=NAME)");
  // Compressed, the threshold can act.
  CHECK(study::collective_notes({"compress.min_bytes=1MiB"}, 2, true, tiny, tiny, 1).empty());
}

TEST_CASE("a collective study under --set reads the platform changed and takes the compressor set", "[study]") {
  study::DataLookup l = lookup();
  int platforms = 0;
  l.platform = [&platforms](const std::string& name, const topology::PlatformOverrides& overrides) {
    ++platforms;
    return topology::read_platform(name, overrides);
  };
  study::ReplaySettings settings;
  settings.platform = kTiny;
  const study::CollectivePlatform base = study::study_collective(settings, 4, k64MiB, DType::kF32, l);
  settings.settings = {"inter.bandwidth=x2"};
  const study::CollectivePlatform faster = study::study_collective(settings, 4, k64MiB, DType::kF32, l);
  CHECK(platforms == 2);
  CHECK(base.study.nodes == 2);
  CHECK(faster.study.links.inter_beta_s_per_byte == Approx(base.study.links.inter_beta_s_per_byte / 2));
  CHECK(time_of(faster.study, "ring") < time_of(base.study, "ring"));
  CHECK(time_of(base.study, "compressed-ring") == -1);
  settings.settings = {"compress=cuszp:eb=1e-3"};
  const study::CollectivePlatform packed = study::study_collective(settings, 4, k64MiB, DType::kF32, l);
  CHECK(time_of(packed.study, "compressed-ring") > 0);
}
