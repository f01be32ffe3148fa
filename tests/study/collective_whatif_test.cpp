// whatif --collective as a library (study/collective_whatif.hpp) on the tiny platform of
// tests/data (4 nodes of 2 accelerators: intra links 1 us and 10 GB/s to the node's hub, NICs
// 5 us and 1 GB/s, reductions at 10 GB/s): the ring's time by the textbook alpha-beta-gamma
// formula, the baseline against a what-if of twice the intra-node bandwidth, text and JSON.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/lines_of.hpp"
#include "study/collective_whatif.hpp"
#include "study/data_folders.hpp"

using namespace ccsim;
using Catch::Matchers::Contains;

namespace {

using test::lines_of;

const std::string kRoot = CCSIM_SOURCE_DIR;
constexpr std::uint64_t k64MiB = 64ull << 20;
constexpr double kN = 64.0 * 1024 * 1024;
// Two ranks of one node: 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma, alpha two intra links
// of 1 us.
constexpr double kRingS = 2 * 2e-6 + kN / 1e10 + kN / 2 / 1e10;
constexpr double kRingX2S = 2 * 2e-6 + kN / 2e10 + kN / 2 / 1e10;  // intra.bandwidth=x2

study::CollectiveWhatIf on_tiny(std::vector<std::string> settings) {
  study::ReplaySettings s;
  s.platform = kRoot + "/tests/data/tiny.json";
  s.settings = std::move(settings);
  return study::whatif_collective(s, 2, k64MiB, DType::kF32, study::folder_lookup(study::data_folders(kRoot)));
}

}  // namespace

TEST_CASE("whatif --collective without --set: every algorithm of the baseline, the ring by hand", "[study]") {
  const study::CollectiveWhatIf w = on_tiny({});
  CHECK(w.what_if == nullptr);
  CHECK(&w.shown() == w.baseline.get());
  const std::vector<std::string> lines = lines_of(study::collective_whatif_text(w));
  REQUIRE(lines.size() >= 6);
  CHECK(lines[0] == "all_reduce of 64 MiB (fp32) on 2 ranks of tiny (1 node x 2, ranks node-major)");
  CHECK(lines[1] == "links: intra 2 us, 10 GB/s; inter none (one node); NIC 1 GB/s x 1; reduction 10 GB/s");
  CHECK(lines[2] == "model: closed form of each schedule; no contention except NICs shared by the ranks of a node");
  CHECK(lines[3] == "algorithm                    time ms   algbw GB/s   busbw GB/s  NIC shared by");
  CHECK_THAT(lines[4], Contains(fmt::format("{:>12.3f}  {:>11.3f}", kRingS * 1e3, kN / kRingS / 1e9)));
  CHECK(lines[4].rfind("ring", 0) == 0);
  CHECK(lines.back() == w.choice.line());
  CHECK(lines.size() == 4 + w.rows.size() + 1);

  const nlohmann::json doc = nlohmann::json::parse(study::collective_whatif_json(w));
  CHECK(doc["collective"] == "all_reduce");
  CHECK(doc["bytes"] == k64MiB);
  CHECK(doc["nodes"] == 1);
  CHECK(doc["platform"] == "tiny");
  CHECK(doc["assumptions"].empty());
  CHECK(doc["algorithms"].size() == w.rows.size());
  CHECK(doc["algorithms"][0]["algorithm"] == "ring");
  CHECK(doc["algorithms"][0]["time_ms"].get<double>() == Approx(kRingS * 1e3));
  CHECK(doc["algorithms"][0]["busbw_GBps"].get<double>() == Approx(kN / kRingS / 1e9));  // 2(p-1)/p = 1
  CHECK(doc["auto"]["algorithm"] == w.choice.chosen->algorithm);
}

TEST_CASE("whatif --collective with --set: both runs side by side and the change", "[study]") {
  const study::CollectiveWhatIf w = on_tiny({"intra.bandwidth=x2"});
  REQUIRE(w.what_if != nullptr);
  CHECK(&w.shown() == w.what_if.get());
  const std::vector<std::string> lines = lines_of(study::collective_whatif_text(w));
  REQUIRE(lines.size() >= 7);
  CHECK(lines[1] == "assumption: intra.bandwidth=x2");
  CHECK(lines[2] == "links: intra 2 us, 20 GB/s; inter none (one node); NIC 1 GB/s x 1; reduction 10 GB/s");
  CHECK(lines[4] ==
        "algorithm                baseline ms    what_if ms   change %   algbw GB/s   busbw GB/s  NIC shared by");
  CHECK_THAT(lines[5], Contains(fmt::format("{:>12.3f}  {:>12.3f}  {:>+9.2f}", kRingS * 1e3, kRingX2S * 1e3,
                                            (kRingX2S / kRingS - 1) * 100)));

  const nlohmann::json doc = nlohmann::json::parse(study::collective_whatif_json(w));
  CHECK(doc["assumptions"] == nlohmann::json::array({"intra.bandwidth=x2"}));
  const nlohmann::json& ring = doc["algorithms"][0];
  CHECK(ring["algorithm"] == "ring");
  CHECK(ring["baseline_ms"].get<double>() == Approx(kRingS * 1e3));
  CHECK(ring["what_if_ms"].get<double>() == Approx(kRingX2S * 1e3));
  CHECK(ring["change_percent"].get<double>() == Approx((kRingX2S / kRingS - 1) * 100));
  CHECK(!ring.contains("time_ms"));
}

TEST_CASE("whatif --collective: a result moves with the predictions its rows point into", "[study]") {
  study::CollectiveWhatIf w = on_tiny({"intra.bandwidth=x2"});
  const std::string before = study::collective_whatif_text(w);
  const study::CollectiveWhatIf moved = std::move(w);
  CHECK(study::collective_whatif_text(moved) == before);
}
