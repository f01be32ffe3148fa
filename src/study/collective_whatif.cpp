#include "study/collective_whatif.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "core/parse.hpp"

namespace ccsim::study {
namespace {

using Json = nlohmann::ordered_json;

/// The JSON of the choice: {"algorithm", "time_ms", "next_best", "next_best_ms", "speedup"}.
Json auto_json(const AutoChoice& c) {
  Json j;
  j["algorithm"] = c.chosen->algorithm;
  j["time_ms"] = c.chosen->time_s * 1e3;
  j["next_best"] = c.next != nullptr ? Json(c.next->algorithm) : nullptr;
  j["next_best_ms"] = c.next != nullptr ? Json(c.next->time_s * 1e3) : nullptr;
  j["speedup"] = c.next != nullptr ? Json(c.next->time_s / c.chosen->time_s) : nullptr;
  return j;
}

/// The row of one algorithm in the JSON document.
Json algorithm_json(const CollectiveWhatIf& w, const PairedPrediction& r) {
  const collective::Prediction& pr = r.shown();
  Json row;
  row["algorithm"] = r.algorithm;
  if (w.what_if) {  // null where one run has no such algorithm
    row["baseline_ms"] = r.baseline != nullptr ? Json(r.baseline->time_s * 1e3) : nullptr;
    row["what_if_ms"] = r.what_if != nullptr ? Json(r.what_if->time_s * 1e3) : nullptr;
    row["change_percent"] = r.baseline != nullptr && r.what_if != nullptr
                                ? Json((r.what_if->time_s / r.baseline->time_s - 1) * 100)
                                : nullptr;
  } else {
    row["time_ms"] = pr.time_s * 1e3;
  }
  row["algbw_GBps"] = static_cast<double>(w.bytes) / pr.time_s / 1e9;
  row["busbw_GBps"] = all_reduce_bus_bandwidth_Bps(w.bytes, pr.time_s, w.ranks) / 1e9;
  row["nic_sharing"] = pr.nic_sharing;
  return row;
}

/// The "links:" line: the group's links as the closed forms take them.
std::string links_line(const CollectiveWhatIf& w) {
  const CollectivePlatform& shown = w.shown();
  const int nodes = shown.study.nodes;
  const topology::Network& net = shown.platform.network;
  const collective::GroupLinks& l = shown.study.links;
  const std::string intra =
      nodes > 1 && std::min(w.ranks, net.accelerators_per_node()) == 1
          ? std::string("none (one rank per node)")
          : fmt::format("{:.3g} us, {}", l.intra_alpha_s * 1e6,
                        format_rate(l.intra_beta_s_per_byte > 0 ? 1 / l.intra_beta_s_per_byte : 0));
  const std::string inter =
      nodes == 1 ? std::string("none (one node)")
                 : fmt::format("{:.3g} us, {} per flow", l.inter_alpha_s * 1e6,
                               format_rate(l.inter_beta_s_per_byte > 0 ? 1 / l.inter_beta_s_per_byte : 0));
  return fmt::format("links: intra {}; inter {}; NIC {} x {}; reduction {}\n", intra, inter, format_rate(l.nic_Bps),
                     l.nics_per_node, format_rate(1 / l.gamma_s_per_byte));
}

/// The table row of one algorithm in the text.
std::string algorithm_line(const CollectiveWhatIf& w, const PairedPrediction& r) {
  const collective::Prediction& pr = r.shown();
  const std::string name =
      r.algorithm + (r.what_if != nullptr || !w.what_if ? w.choice.mark(r.algorithm) : std::string());
  const double algbw = static_cast<double>(w.bytes) / pr.time_s / 1e9;
  const double busbw = all_reduce_bus_bandwidth_Bps(w.bytes, pr.time_s, w.ranks) / 1e9;
  if (!w.what_if) {
    return fmt::format("{:<22}  {:>12.3f}  {:>11.3f}  {:>11.3f}  {}\n", name, pr.time_s * 1e3, algbw, busbw,
                       pr.nic_sharing);
  }
  auto ms = [](const collective::Prediction* p) { return p != nullptr ? fmt::format("{:.3f}", p->time_s * 1e3) : "-"; };
  const std::string change = r.baseline != nullptr && r.what_if != nullptr
                                 ? fmt::format("{:+.2f}", (r.what_if->time_s / r.baseline->time_s - 1) * 100)
                                 : "-";
  return fmt::format("{:<22}  {:>12}  {:>12}  {:>9}  {:>11.3f}  {:>11.3f}  {}\n", name, ms(r.baseline), ms(r.what_if),
                     change, algbw, busbw, pr.nic_sharing);
}

}  // namespace

CollectiveWhatIf whatif_collective(const ReplaySettings& settings, int ranks, std::uint64_t bytes, DType dtype,
                                   const DataLookup& lookup) {
  CollectiveWhatIf w;
  w.bytes = bytes;
  w.dtype = dtype;
  w.ranks = ranks;
  w.settings = settings.settings;
  ReplaySettings baseline = settings;
  baseline.settings.clear();
  w.baseline = std::make_unique<const CollectivePlatform>(study_collective(baseline, ranks, bytes, dtype, lookup));
  if (!settings.settings.empty()) {
    w.what_if = std::make_unique<const CollectivePlatform>(study_collective(settings, ranks, bytes, dtype, lookup));
  }
  const CollectivePlatform& shown = w.shown();
  w.choice = auto_choice(shown.study.predictions);
  w.notes = collective_notes(settings.settings, ranks, !with_settings(settings).compress.empty(), w.baseline->platform,
                             shown.platform, shown.study.nodes);
  w.rows = pair_predictions(w.baseline->study, w.what_if ? &w.what_if->study : nullptr);
  return w;
}

std::string collective_whatif_json(const CollectiveWhatIf& w) {
  const CollectivePlatform& shown = w.shown();
  Json doc;
  doc["collective"] = w.collective;
  doc["bytes"] = w.bytes;
  doc["dtype"] = dtype_name(w.dtype);
  doc["ranks"] = w.ranks;
  doc["nodes"] = shown.study.nodes;
  doc["platform"] = shown.platform.name;
  doc["assumptions"] = w.settings;
  doc["notes"] = w.notes;
  doc["model"] = describe_model(shown.study);
  doc["auto"] = auto_json(w.choice);
  doc["algorithms"] = Json::array();
  for (const PairedPrediction& r : w.rows) doc["algorithms"].push_back(algorithm_json(w, r));
  return doc.dump(2) + "\n";
}

std::string collective_whatif_text(const CollectiveWhatIf& w) {
  const CollectivePlatform& shown = w.shown();
  const int nodes = shown.study.nodes;
  std::ostringstream out;
  fmt::print(out, "{} of {} ({}) on {} ranks of {} ({} node{} x {}, ranks node-major)\n", w.collective,
             format_bytes(static_cast<double>(w.bytes)), dtype_name(w.dtype), w.ranks, shown.platform.name, nodes,
             nodes == 1 ? "" : "s", std::min(w.ranks, shown.platform.network.accelerators_per_node()));
  for (const std::string& setting : w.settings) fmt::print(out, "assumption: {}\n", setting);
  for (const std::string& note : w.notes) fmt::print(out, "note: {}\n", note);
  out << links_line(w);
  fmt::print(out, "model: {}\n", describe_model(shown.study));
  if (w.what_if) {
    fmt::print(out, "{:<22}  {:>12}  {:>12}  {:>9}  {:>11}  {:>11}  {}\n", "algorithm", "baseline ms", "what_if ms",
               "change %", "algbw GB/s", "busbw GB/s", "NIC shared by");
  } else {
    fmt::print(out, "{:<22}  {:>12}  {:>11}  {:>11}  {}\n", "algorithm", "time ms", "algbw GB/s", "busbw GB/s",
               "NIC shared by");
  }
  for (const PairedPrediction& r : w.rows) out << algorithm_line(w, r);
  if (w.what_if && w.rows.size() > shown.study.predictions.size()) {
    fmt::print(out, "-: the algorithm does not apply to that run (a compressor changes the algorithms)\n");
  }
  fmt::print(out, "{}\n", w.choice.line());
  return out.str();
}

}  // namespace ccsim::study
