#include "topology/network_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"

namespace ccsim::topology {

double ramp_weight(double bytes, double from, double to) {
  if (!(from > 0) || !(to > from)) throw std::logic_error("ramp_weight: expected 0 < from < to");
  if (bytes <= from) return 0.0;
  if (bytes >= to) return 1.0;
  return std::log(bytes / from) / std::log(to / from);
}

CostSegment TierModel::at(double bytes) const {
  if (segments.empty()) throw std::logic_error("TierModel::at: a tier without segments");
  // Below the floor, the floor's values (and, latency-bound there, the bytes short of it as latency).
  const double floor = static_cast<double>(floor_bytes);
  const double b = std::max(bytes, floor);
  // Segments are sorted by min_bytes: the last one not above `b` (the first covers everything below).
  auto it = std::upper_bound(segments.begin(), segments.end(), b,
                             [](double x, const CostSegment& s) { return x < static_cast<double>(s.min_bytes); });
  const std::size_t i = it == segments.begin() ? 0 : static_cast<std::size_t>(it - segments.begin()) - 1;
  CostSegment s = segments[i];
  if (s.ramp && i + 1 < segments.size()) {
    const CostSegment& next = segments[i + 1];
    const double w = ramp_weight(b, static_cast<double>(s.min_bytes), static_cast<double>(next.min_bytes));
    s.latency_s = (1 - w) * s.latency_s + w * next.latency_s;
    s.bandwidth_Bps = 1.0 / ((1 - w) / s.bandwidth_Bps + w / next.bandwidth_Bps);
  }
  if (bytes < floor && floor_latency_bound()) s.latency_s += (floor - bytes) / s.bandwidth_Bps;
  return s;
}

bool TierModel::floor_latency_bound() const {
  if (floor_bytes == 0 || segments.empty()) return false;
  const double floor = static_cast<double>(floor_bytes);
  // The floor's own segment, as at() finds it for a message of floor_bytes.
  auto it = std::upper_bound(segments.begin(), segments.end(), floor,
                             [](double x, const CostSegment& s) { return x < static_cast<double>(s.min_bytes); });
  const CostSegment& s = segments[it == segments.begin() ? 0 : static_cast<std::size_t>(it - segments.begin()) - 1];
  return send_overhead_s + s.latency_s + recv_overhead_s >= floor / s.bandwidth_Bps;
}

std::string TierModel::extrapolation() const {
  if (floor_bytes == 0) return "";
  return floor_latency_bound()
             ? fmt::format("as one of {} B, the smallest fitted (latency-bound there)", floor_bytes)
             : fmt::format("by the line of the segment of {} B, the smallest fitted (bandwidth-bound there)",
                           floor_bytes);
}

double TierModel::message_s(std::uint64_t bytes) const {
  const CostSegment s = at(static_cast<double>(bytes));
  return send_overhead_s + s.latency_s + static_cast<double>(bytes) / s.bandwidth_Bps + recv_overhead_s;
}

TierModel on_shared_cores(const TierModel& tier, double sharing) {
  if (!(sharing > 1)) return tier;
  TierModel shared = tier;
  shared.send_overhead_s *= sharing;
  shared.recv_overhead_s *= sharing;
  for (CostSegment& s : shared.segments) {
    s.latency_s = s.latency_s * sharing + tier.handoff_s;
    if (tier.link_Bps > 0) {
      const double wire = 1 / tier.link_Bps;
      const double per_byte = 1 / s.bandwidth_Bps;
      if (per_byte > wire) s.bandwidth_Bps = 1 / (wire + sharing * (per_byte - wire));
    } else {
      s.bandwidth_Bps /= sharing;
    }
  }
  shared.handoff_s = 0;  // paid
  return shared;
}

namespace {

using json::ObjectReader;

constexpr double kMaxTime_s = kMaxModelTime_s;
constexpr double kMinBandwidth_Bps = kMinModelBandwidth_Bps;
constexpr double kMaxBandwidth_Bps = kMaxModelBandwidth_Bps;
constexpr double kMaxReduce_s_per_byte = kMaxModelReduce_s_per_byte;

TierModel read_tier(ObjectReader tier) {
  TierModel model;
  model.send_overhead_s = tier.required("send_overhead_s").number_in(0, kMaxTime_s);
  model.recv_overhead_s = tier.required("recv_overhead_s").number_in(0, kMaxTime_s);
  model.handoff_s = tier.optional("shared_core_handoff_s").number_in(0, kMaxTime_s).value_or(0);
  model.floor_bytes = tier.optional("floor_bytes").non_negative_integer().value_or(0);
  model.link_Bps = tier.optional("link_bandwidth_Bps").number_in(kMinBandwidth_Bps, kMaxBandwidth_Bps).value_or(0);
  const json::Value& list = tier.required("segments").array();
  const std::string list_path = tier.member_path("segments");
  if (list.items().empty()) tier.at("segments").fail("expected at least one segment, got []");
  for (std::size_t i = 0; i < list.items().size(); ++i) {
    ObjectReader r(list.items()[i], tier.file(), json::item_path(list_path, i));
    CostSegment s;
    s.min_bytes = r.required("min_bytes").non_negative_integer();
    if (i == 0 && s.min_bytes != 0) {
      r.at("min_bytes").fail("expected 0 (the first segment starts at 0), " + json::got(*r.required("min_bytes")));
    }
    if (i > 0 && s.min_bytes <= model.segments.back().min_bytes) {
      r.at("min_bytes")
          .fail(fmt::format("expected more than the previous segment's {}, {}", model.segments.back().min_bytes,
                            json::got(*r.required("min_bytes"))));
    }
    s.latency_s = r.required("latency_s").number_in(0, kMaxTime_s);
    s.bandwidth_Bps = r.required("bandwidth_Bps").number_in(kMinBandwidth_Bps, kMaxBandwidth_Bps);
    s.ramp = r.optional("ramp").boolean().value_or(false);
    if (s.ramp && i + 1 == list.items().size()) {
      r.at("ramp").fail(
          "expected false or no ramp on the last segment (a ramp goes to the next segment's values), got true");
    }
    if (s.ramp && s.min_bytes == 0) {
      r.at("ramp").fail(
          "expected false or no ramp on a segment from 0 bytes (a ramp is a straight line in log(bytes)), got true");
    }
    r.finish();
    model.segments.push_back(s);
  }
  tier.finish();
  return model;
}

nlohmann::ordered_json tier_json(const TierModel& tier) {
  nlohmann::ordered_json t;
  t["send_overhead_s"] = tier.send_overhead_s;
  t["recv_overhead_s"] = tier.recv_overhead_s;
  if (tier.handoff_s > 0) t["shared_core_handoff_s"] = tier.handoff_s;
  if (tier.floor_bytes > 0) t["floor_bytes"] = tier.floor_bytes;
  if (tier.link_Bps > 0) t["link_bandwidth_Bps"] = tier.link_Bps;
  nlohmann::ordered_json segments = nlohmann::ordered_json::array();
  for (const CostSegment& s : tier.segments) {
    nlohmann::ordered_json j;
    j["min_bytes"] = s.min_bytes;
    j["latency_s"] = s.latency_s;
    j["bandwidth_Bps"] = s.bandwidth_Bps;
    if (s.ramp) j["ramp"] = true;
    segments.push_back(std::move(j));
  }
  t["segments"] = std::move(segments);
  return t;
}

}  // namespace

NetworkModel parse_network_model(std::string_view text, const std::string& source) {
  json::Value root = json::parse(text, source);
  ObjectReader doc(root, source, "");
  std::string format = doc.required("format").string();
  if (format != kNetworkModelFormat) {
    doc.at("format").fail(fmt::format("expected \"{}\", got \"{}\"", kNetworkModelFormat, format));
  }
  std::int64_t version = doc.required("version").integer();
  if (version != kNetworkModelVersion) {
    doc.at("version").fail(fmt::format("expected {} (the only version this build reads), got \"{}\"",
                                       kNetworkModelVersion, doc.required("version")->text()));
  }
  NetworkModel model;
  model.file = source;
  model.name = doc.required("name").string();
  if (model.name.empty()) doc.at("name").fail("expected a name, got \"\"");
  model.description = doc.required("description").string();
  model.hardware = doc.required("hardware").string();
  model.source = doc.required("source").string();
  if (model.source.empty()) doc.at("source").fail("expected the measurements and the command, got \"\"");
  ObjectReader tiers = doc.child("tiers");
  if (tiers.optional("intra")) {
    model.has_intra = true;
    model.intra = read_tier(tiers.child("intra"));
  }
  if (tiers.optional("inter")) {
    model.has_inter = true;
    model.inter = read_tier(tiers.child("inter"));
  }
  if (!model.has_intra && !model.has_inter) tiers.here().fail("expected at least one of intra, inter, got {}");
  tiers.finish();
  model.reduce_s_per_byte = doc.optional("reduce_s_per_byte").number_in(0, kMaxReduce_s_per_byte).value_or(0.0);
  if (doc.optional("fitted_on")) {
    ObjectReader fit = doc.child("fitted_on");
    FitRecord record;
    record.file = fit.required("file").string();
    record.content = fit.optional("content").string().value_or("");
    record.series = fit.required("series").string();
    record.group = fit.optional("group").string().value_or("");
    std::int64_t ranks = fit.required("ranks").positive_integer();
    if (ranks > 1 << 24) fit.at("ranks").fail("expected at most 16777216, " + json::got(*fit.required("ranks")));
    record.ranks = static_cast<int>(ranks);
    const json::Value& list = fit.required("bytes").array();
    const std::string path = fit.member_path("bytes");
    for (std::size_t i = 0; i < list.items().size(); ++i) {
      const json::Value& item = list.items()[i];
      record.bytes.push_back(
          json::as_non_negative_integer(item, SourceRef{source, item.line(), json::item_path(path, i)}));
    }
    record.affinity = fit.optional("affinity").string().value_or("");
    fit.finish();
    model.fitted_on = std::move(record);
  }
  doc.finish();
  return model;
}

NetworkModel read_network_model(const std::string& path) { return parse_network_model(json::read_file(path), path); }

std::string write_network_model(const NetworkModel& model) {
  nlohmann::ordered_json doc;
  doc["format"] = kNetworkModelFormat;
  doc["version"] = kNetworkModelVersion;
  doc["name"] = model.name;
  doc["description"] = model.description;
  doc["hardware"] = model.hardware;
  doc["source"] = model.source;
  nlohmann::ordered_json tiers = nlohmann::ordered_json::object();
  if (model.has_intra) tiers["intra"] = tier_json(model.intra);
  if (model.has_inter) tiers["inter"] = tier_json(model.inter);
  doc["tiers"] = std::move(tiers);
  if (model.reduce_s_per_byte != 0) doc["reduce_s_per_byte"] = model.reduce_s_per_byte;
  if (model.fitted_on) {
    nlohmann::ordered_json fit;
    fit["file"] = model.fitted_on->file;
    if (!model.fitted_on->content.empty()) fit["content"] = model.fitted_on->content;
    fit["series"] = model.fitted_on->series;
    if (!model.fitted_on->group.empty()) fit["group"] = model.fitted_on->group;
    fit["ranks"] = model.fitted_on->ranks;
    fit["bytes"] = model.fitted_on->bytes;
    if (!model.fitted_on->affinity.empty()) fit["affinity"] = model.fitted_on->affinity;
    doc["fitted_on"] = std::move(fit);
  }
  return doc.dump(1) + "\n";
}

}  // namespace ccsim::topology
