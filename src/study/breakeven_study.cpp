#include "study/breakeven_study.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "collective/algorithm.hpp"
#include "collective/registry.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "engine/collective_plan.hpp"
#include "study/collective_study.hpp"

namespace ccsim::study {
namespace {

/// Refuses a group of `p` ranks out of range, or beyond the `room` the platform has: its nodes
/// (one rank each), or one node's accelerators (`intra`).
void check_size(int p, int room, const topology::Platform& platform, bool intra) {
  if (p < 2 || p > kMaxBreakevenRanks) {
    throw InputError("command line", 0, "--sizes",
                     fmt::format("expected group sizes from 2 to {}, got \"{}\"", kMaxBreakevenRanks, p));
  }
  if (p > room) {
    throw InputError("command line", 0, "--sizes",
                     intra ? fmt::format("a group of {} ranks in one node (--intra), but a node of platform \"{}\" "
                                         "has {} accelerators",
                                         p, platform.name, room)
                           : fmt::format("a group of {} ranks, one per node, but platform \"{}\" has {} nodes "
                                         "(--intra: ranks in one node)",
                                         p, platform.name, room));
  }
}

std::string bytes_or_never(double bytes) {
  if (std::isinf(bytes)) return "never";
  if (bytes <= 0) return "always";
  return format_bytes(bytes);
}

const char* ranks_of(const BreakevenStudy& s) { return s.request.intra ? "all in one node" : "one per node"; }

}  // namespace

BreakevenStudy study_breakeven(const topology::Platform& platform, const compress::CompressorModel& compressor,
                               const compress::Query& query, const BreakevenRequest& request) {
  const topology::Network& net = platform.network;
  BreakevenStudy s;
  s.platform = platform.name;
  s.request = request;
  s.evaluation = compressor.evaluate(query, request.dtype, engine::target_hardware(platform));
  s.homomorphic = compressor.homomorphic();
  s.at_bytes = parse_bytes_or_throw(request.at, "command line", "--at");
  // One element to the largest buffer a trace may hold, whole elements (6 bytes of fp32 was
  // reported as 6 and computed as 4).
  check_collective_bytes(s.at_bytes, request.at, request.dtype, "command line", 0, "--at");

  // The group's links: one rank per node (between nodes) or all ranks in one node.
  const int peer = request.intra ? 1 : net.accelerators_per_node();
  if (peer >= net.accelerator_count() || (request.intra && net.accelerators_per_node() < 2)) {
    throw InputError("command line", 0, request.intra ? "--intra" : "--platform",
                     fmt::format("platform \"{}\" has no two accelerators {}", platform.name,
                                 request.intra ? "in one node" : "in different nodes"));
  }
  s.path = net.path_cost(0, peer);
  s.reduce_Bps = net.accelerator().reduce_Bps;
  const collective::CostParams params =
      collective::cost_params(s.path.latency_s, 1.0 / s.path.bandwidth_Bps, 1.0 / s.reduce_Bps, s.evaluation.cost);
  std::vector<int> sizes = request.sizes;
  // The ranks the platform has for a group: its nodes (one rank each), or one node's accelerators.
  const int room = request.intra ? net.accelerators_per_node() : net.node_count();
  if (sizes.empty()) {
    for (int p = 2; p <= std::min(kMaxBreakevenRanks, room); p *= 2) sizes.push_back(p);
  }
  for (int p : sizes) {
    check_size(p, room, platform, request.intra);
    collective::Request plain;
    plain.size = p;
    plain.count = 1 << 20;
    plain.element_bytes = dtype_bytes(request.dtype);
    plain.algorithm = request.plain_algorithm;
    collective::Request compressed = plain;
    compressed.compression = collective::compression_of(compressor);
    compressed.algorithm = request.algorithm;
    compressed.algorithm = collective::choose_algorithm(compressed);
    BreakevenRow row;
    row.ranks = p;
    row.even = collective::break_even(plain, compressed, params);
    plain.count = compressed.count = s.at_bytes / static_cast<std::uint64_t>(plain.element_bytes);
    row.speedup_at =
        collective::make_schedule(plain)->cost(params) / collective::make_schedule(compressed)->cost(params);
    row.plain_algorithm = plain.algorithm;
    row.compressed_algorithm = compressed.algorithm;
    s.rows.push_back(std::move(row));
  }
  return s;
}

BreakevenStudy study_breakeven(const BreakevenArgs& args, const DataLookup& lookup) {
  const topology::Platform platform = lookup.platform(args.platform, {});
  const compress::CompressSpec spec = compress::parse_compress_spec(args.compress);
  const compress::CompressorModel model = lookup.compressor(spec);
  BreakevenRequest request = args.request;
  const std::optional<DType> dtype = parse_dtype(args.dtype);
  if (!dtype) {
    throw InputError("command line", 0, "--dtype",
                     fmt::format("expected one of {}, got \"{}\"", dtype_choices(), args.dtype));
  }
  request.dtype = *dtype;
  return study_breakeven(platform, model, spec.query, request);
}

std::string breakeven_text(const BreakevenStudy& s, const std::string& compress) {
  const compress::CompressorCost& c = s.evaluation.cost;
  std::string out;
  out += fmt::format("break-even of compressed all_reduce on {}: {} ({}), {}\n", s.platform, compress,
                     s.evaluation.basis, dtype_name(s.request.dtype));
  out += fmt::format("compressor: ratio {:.4g}, compress {} + {:.3g} us, decompress {} + {:.3g} us{}\n", c.ratio,
                     format_rate(c.compress_Bps), c.compress_t0_s * 1e6, format_rate(c.decompress_Bps),
                     c.decompress_t0_s * 1e6,
                     s.homomorphic ? fmt::format(", homomorphic add {}", format_rate(c.add_Bps)) : std::string());
  for (const std::string& note : s.evaluation.notes) out += fmt::format("note: {}\n", note);
  out += fmt::format(
      "links: ranks {}, alpha {:.3g} us, bandwidth {} per flow, reduction {}; closed forms, no contention\n",
      ranks_of(s), s.path.latency_s * 1e6, format_rate(s.path.bandwidth_Bps), format_rate(s.reduce_Bps));
  out += fmt::format("{:>7}  {:<14}  {:<20}  {:>12}  {:>14}  {:>9}\n", "ranks", "plain", "compressed", "pays above",
                     fmt::format("speedup@{}", s.request.at), "ceiling");
  for (const BreakevenRow& r : s.rows) {
    out += fmt::format("{:>7}  {:<14}  {:<20}  {:>12}  {:>13.3f}x  {:>8.3f}x\n", r.ranks, r.plain_algorithm,
                       r.compressed_algorithm, bytes_or_never(r.even.bytes), r.speedup_at, r.even.speedup_limit);
  }
  return out;
}

std::string breakeven_json(const BreakevenStudy& s, const std::string& compress) {
  const compress::CompressorCost& c = s.evaluation.cost;
  nlohmann::ordered_json doc;
  doc["command"] = "breakeven";
  doc["platform"] = s.platform;
  doc["compress"] = compress;
  doc["basis"] = s.evaluation.basis;
  doc["dtype"] = dtype_name(s.request.dtype);
  doc["compressor"] = {{"ratio", c.ratio},
                       {"compress_Bps", c.compress_Bps},
                       {"compress_t0_s", c.compress_t0_s},
                       {"decompress_Bps", c.decompress_Bps},
                       {"decompress_t0_s", c.decompress_t0_s},
                       {"homomorphic", s.homomorphic}};
  if (s.homomorphic) doc["compressor"]["add_Bps"] = c.add_Bps;
  doc["notes"] = s.evaluation.notes;
  doc["links"] = {{"ranks", ranks_of(s)},
                  {"latency_s", s.path.latency_s},
                  {"bandwidth_Bps", s.path.bandwidth_Bps},
                  {"reduce_Bps", s.reduce_Bps}};
  doc["at_bytes"] = s.at_bytes;
  doc["rows"] = nlohmann::ordered_json::array();
  for (const BreakevenRow& r : s.rows) {
    const collective::BreakEven& even = r.even;
    nlohmann::ordered_json row;
    row["ranks"] = r.ranks;
    row["plain_algorithm"] = r.plain_algorithm;
    row["compressed_algorithm"] = r.compressed_algorithm;
    row["pays"] = std::isinf(even.bytes) ? "never" : even.bytes <= 0 ? "always" : "above";
    row["pays_above_bytes"] =
        std::isinf(even.bytes) || even.bytes <= 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(even.bytes);
    row["speedup_at"] = r.speedup_at;
    row["speedup_ceiling"] = even.speedup_limit;
    doc["rows"].push_back(std::move(row));
  }
  return doc.dump(2) + "\n";
}

}  // namespace ccsim::study
