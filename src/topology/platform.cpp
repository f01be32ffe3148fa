#include "topology/platform.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"

namespace ccsim::topology {
namespace {

using json::ObjectReader;

/// A link description: bandwidth, latency, sharing and where the figures come from.
Link read_link(ObjectReader& r, Network& network, const std::string& tier_name) {
  Link link;
  link.bandwidth_Bps = r.positive("bandwidth_Bps");
  link.latency_s = r.non_negative("latency_s");
  if (r.has("sharing")) {
    link.sharing = r.choice("sharing", {"split-duplex", "shared"}) == "shared" ? Sharing::kShared : Sharing::kSplitDuplex;
  }
  std::string source = r.string("source");
  r.allow({"note"});
  r.finish();
  link.tier = network.add_tier(tier_name, source);
  return link;
}

AcceleratorSpec read_accelerator(ObjectReader& r) {
  AcceleratorSpec spec;
  spec.model = r.string("model");
  spec.flops = r.positive("flops");
  spec.reduce_Bps = r.positive("reduce_Bps");
  spec.memory_Bps = r.optional_positive("memory_Bps").value_or(0.0);
  spec.source = r.string("source");
  r.allow({"note"});
  r.finish();
  return spec;
}

int bounded_count(ObjectReader& r, std::string_view key, std::int64_t max) {
  std::int64_t value = r.positive_integer(key);
  if (value > max) r.at(key).fail(fmt::format("expected at most {}, got \"{}\"", max, value));
  return static_cast<int>(value);
}

}  // namespace

Platform parse_platform(std::string_view text, const std::string& source) {
  json::Value root = json::parse(text, source);
  ObjectReader doc(root, source, "");
  std::string format = doc.string("format");
  if (format != kPlatformFormat) {
    doc.at("format").fail(fmt::format("expected \"{}\", got \"{}\"", kPlatformFormat, format));
  }
  std::int64_t version = doc.integer("version");
  if (version != kPlatformVersion) {
    doc.at("version").fail(fmt::format("expected {} (the only version this build reads), got \"{}\"", kPlatformVersion,
                                       doc.required("version").text()));
  }
  Platform platform;
  platform.file = source;
  platform.name = doc.string("name");
  platform.description = doc.optional_string("description").value_or("");
  doc.allow({"notes"});
  Network& net = platform.network;

  int nodes = bounded_count(doc, "nodes", 1 << 20);
  ObjectReader node = doc.child("node");
  int per_node = bounded_count(node, "accelerators", 1024);
  ObjectReader acc = node.child("accelerator");
  net.set_accelerator(read_accelerator(acc));
  ObjectReader intra_r = node.child("intra_link");
  Link intra = read_link(intra_r, net, "intra");
  int nics = bounded_count(node, "nics", 64);
  ObjectReader nic_r = node.child("nic_link");
  Link nic = read_link(nic_r, net, "nic");
  node.finish();
  if (static_cast<std::int64_t>(nodes) * per_node > (1 << 24)) {
    doc.at("nodes").fail(fmt::format("expected at most 16777216 accelerators in all, got {} nodes x {}", nodes, per_node));
  }

  ObjectReader network = doc.child("network");
  platform.topology = network.choice("topology", {"switch"});
  network.string("source");
  network.allow({"note"});
  network.finish();
  doc.finish();

  // A single non-blocking switch joins every NIC.
  Network::VertexId sw = net.add_vertex(VertexInfo{VertexKind::kSwitch, -1, 0, 1});
  std::vector<Network::VertexId> attach(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(nics), sw);
  net.build_nodes(nodes, per_node, intra, nics, nic, attach);
  net.set_fabric(std::make_unique<TreeRouter>(net.vertex_count()));
  return platform;
}

Platform read_platform(const std::string& path) { return parse_platform(json::read_file(path), path); }

std::string find_platform(const std::string& name_or_path, const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  if (name_or_path.ends_with(".json") || name_or_path.find('/') != std::string::npos) return name_or_path;
  for (const std::string& dir : dirs) {
    fs::path candidate = fs::path(dir) / (name_or_path + ".json");
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  std::vector<std::string> names = list_platforms(dirs);
  throw InputError("--platform", 0, "",
                   fmt::format("unknown platform \"{}\"; presets: {}", name_or_path,
                               names.empty() ? std::string("none found") : fmt::format("{}", fmt::join(names, ", "))));
}

std::vector<std::string> list_platforms(const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  std::set<std::string> names;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".json") names.insert(it->path().stem().string());
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace ccsim::topology
