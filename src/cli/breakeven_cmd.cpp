#include <cmath>
#include <memory>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "collective/breakeven.hpp"
#include "collective/registry.hpp"
#include "compress/compress_spec.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/units.hpp"
#include "engine/collective_plan.hpp"
#include "study/collective_study.hpp"
#include "topology/platform.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::cli {
namespace {

struct BreakevenCommand {
  std::string platform;
  std::string compress;
  std::string plain_algorithm = "ring";
  std::string algorithm = "auto";
  std::string dtype = "fp32";
  std::string at = "64MiB";
  std::vector<int> sizes;
  bool intra = false;
  std::string format = "text";
};

std::string bytes_or_never(double bytes) {
  if (std::isinf(bytes)) return "never";
  if (bytes <= 0) return "always";
  return format_bytes(bytes);
}

constexpr int kMaxBreakevenRanks = 1024;

void run_breakeven(const BreakevenCommand& cmd) {
  topology::Platform platform = topology::read_platform(topology::find_platform(cmd.platform, platform_dirs()));
  const topology::Network& net = platform.network;
  compress::CompressSpec spec = compress::parse_compress_spec(cmd.compress);
  compress::CompressorModel model = compress::load_compressor(spec, compressor_dirs());
  auto dtype = parse_dtype(cmd.dtype);
  if (!dtype)
    throw InputError("command line", 0, "--dtype",
                     fmt::format("expected one of {}, got \"{}\"", dtype_choices(), cmd.dtype));
  compress::Evaluation evaluation = model.evaluate(spec.query, *dtype, engine::target_hardware(platform));
  const std::uint64_t at = parse_bytes_or_throw(cmd.at, "command line", "--at");
  // One element to the largest buffer a trace may hold, whole elements (6 bytes of fp32 was
  // reported as 6 and computed as 4).
  study::check_collective_bytes(at, cmd.at, *dtype, "command line", 0, "--at");

  // The group's links: one rank per node (between nodes) or all ranks in one node.
  int peer = cmd.intra ? 1 : net.accelerators_per_node();
  if (peer >= net.accelerator_count() || (cmd.intra && net.accelerators_per_node() < 2)) {
    throw InputError("command line", 0, cmd.intra ? "--intra" : "--platform",
                     fmt::format("platform \"{}\" has no two accelerators {}", platform.name,
                                 cmd.intra ? "in one node" : "in different nodes"));
  }
  topology::Network::PathCost path = net.path_cost(0, peer);
  collective::CostParams params = collective::cost_params(path.latency_s, 1.0 / path.bandwidth_Bps,
                                                          1.0 / net.accelerator().reduce_Bps, evaluation.cost);
  const compress::CompressorCost& c = evaluation.cost;

  nlohmann::ordered_json doc;
  doc["command"] = "breakeven";
  doc["platform"] = platform.name;
  doc["compress"] = cmd.compress;
  doc["basis"] = evaluation.basis;
  doc["dtype"] = dtype_name(*dtype);
  doc["compressor"] = {{"ratio", c.ratio},
                       {"compress_Bps", c.compress_Bps},
                       {"compress_t0_s", c.compress_t0_s},
                       {"decompress_Bps", c.decompress_Bps},
                       {"decompress_t0_s", c.decompress_t0_s},
                       {"homomorphic", model.homomorphic()}};
  if (model.homomorphic()) doc["compressor"]["add_Bps"] = c.add_Bps;
  doc["notes"] = evaluation.notes;
  doc["links"] = {{"ranks", cmd.intra ? "all in one node" : "one per node"},
                  {"latency_s", path.latency_s},
                  {"bandwidth_Bps", path.bandwidth_Bps},
                  {"reduce_Bps", net.accelerator().reduce_Bps}};
  doc["at_bytes"] = at;
  doc["rows"] = nlohmann::ordered_json::array();
  std::string out;
  out += fmt::format("break-even of compressed all_reduce on {}: {} ({}), {}\n", platform.name, cmd.compress,
                     evaluation.basis, dtype_name(*dtype));
  out += fmt::format("compressor: ratio {:.4g}, compress {} + {:.3g} us, decompress {} + {:.3g} us{}\n", c.ratio,
                     format_rate(c.compress_Bps), c.compress_t0_s * 1e6, format_rate(c.decompress_Bps),
                     c.decompress_t0_s * 1e6,
                     model.homomorphic() ? fmt::format(", homomorphic add {}", format_rate(c.add_Bps)) : std::string());
  for (const std::string& note : evaluation.notes) out += fmt::format("note: {}\n", note);
  out += fmt::format(
      "links: ranks {}, alpha {:.3g} us, bandwidth {} per flow, reduction {}; closed forms, no contention\n",
      cmd.intra ? "all in one node" : "one per node", path.latency_s * 1e6, format_rate(path.bandwidth_Bps),
      format_rate(net.accelerator().reduce_Bps));
  out += fmt::format("{:>7}  {:<14}  {:<20}  {:>12}  {:>14}  {:>9}\n", "ranks", "plain", "compressed", "pays above",
                     fmt::format("speedup@{}", cmd.at), "ceiling");
  std::vector<int> sizes = cmd.sizes;
  // The ranks the platform has for a group: its nodes (one rank each), or one node's accelerators.
  const int room = cmd.intra ? net.accelerators_per_node() : net.node_count();
  if (sizes.empty()) {
    for (int p = 2; p <= std::min(1024, room); p *= 2) sizes.push_back(p);
  }
  for (int p : sizes) {
    // A schedule holds O(p^2) steps: beyond the default's 1024 it would exhaust memory.
    if (p < 2 || p > kMaxBreakevenRanks) {
      throw InputError("command line", 0, "--sizes",
                       fmt::format("expected group sizes from 2 to {}, got \"{}\"", kMaxBreakevenRanks, p));
    }
    if (p > room) {
      throw InputError("command line", 0, "--sizes",
                       cmd.intra
                           ? fmt::format("a group of {} ranks in one node (--intra), but a node of platform \"{}\" "
                                         "has {} accelerators",
                                         p, platform.name, room)
                           : fmt::format("a group of {} ranks, one per node, but platform \"{}\" has {} nodes "
                                         "(--intra: ranks in one node)",
                                         p, platform.name, room));
    }
    collective::Request plain;
    plain.size = p;
    plain.count = 1 << 20;
    plain.element_bytes = dtype_bytes(*dtype);
    plain.algorithm = cmd.plain_algorithm;
    collective::Request compressed = plain;
    compressed.compression = collective::compression_of(model);
    compressed.algorithm = cmd.algorithm;
    compressed.algorithm = collective::choose_algorithm(compressed);
    collective::BreakEven even = collective::break_even(plain, compressed, params);
    plain.count = compressed.count = at / static_cast<std::uint64_t>(plain.element_bytes);
    double speedup =
        collective::make_schedule(plain)->cost(params) / collective::make_schedule(compressed)->cost(params);
    out += fmt::format("{:>7}  {:<14}  {:<20}  {:>12}  {:>13.3f}x  {:>8.3f}x\n", p, plain.algorithm,
                       compressed.algorithm, bytes_or_never(even.bytes), speedup, even.speedup_limit);
    nlohmann::ordered_json row;
    row["ranks"] = p;
    row["plain_algorithm"] = plain.algorithm;
    row["compressed_algorithm"] = compressed.algorithm;
    // JSON has no infinity: "pays" says never / always / above, and pays_above_bytes is null unless above.
    row["pays"] = std::isinf(even.bytes) ? "never" : even.bytes <= 0 ? "always" : "above";
    row["pays_above_bytes"] =
        std::isinf(even.bytes) || even.bytes <= 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(even.bytes);
    row["speedup_at"] = speedup;
    row["speedup_ceiling"] = even.speedup_limit;
    doc["rows"].push_back(std::move(row));
  }
  write_output("-", cmd.format == "json" ? doc.dump(2) + "\n" : out);
}

}  // namespace

void setup_breakeven(CLI::App& app) {
  auto cmd = std::make_shared<BreakevenCommand>();
  CLI::App* sub = app.add_subcommand(
      "breakeven",
      "For a range of group sizes, the all_reduce size above which compression pays on a platform and the speedup "
      "ceiling (closed forms of the schedules, alpha-beta-gamma plus compression terms, no contention)");
  sub->add_option("-p,--platform", cmd->platform, "Platform preset name or platform file")->required();
  sub->add_option("--compress", cmd->compress, "Compressor NAME[:key=value,...], as for replay")->required();
  sub->add_option("--sizes", cmd->sizes, "Group sizes (default: 2, 4, ... up to the nodes, at most 1024)")
      ->delimiter(',');
  sub->add_option("--plain-algo", cmd->plain_algorithm, "Plain all_reduce algorithm to beat")
      ->check(
          one_of(algorithm_choices(collective::plain_all_reduce_algorithms(collective::NodeLayout::kUnknown), false)))
      ->capture_default_str();
  sub->add_option("--algo", cmd->algorithm, "Compressed algorithm; 'auto' follows the compressor's kind")
      ->check(one_of(algorithm_choices(collective::compressed_all_reduce_algorithms(), true)))
      ->capture_default_str();
  sub->add_option("--dtype", cmd->dtype, "Element type of the buffer")->capture_default_str();
  sub->add_option("--at", cmd->at, "Also print the speedup at this buffer size")->capture_default_str();
  sub->add_option("-f,--format", cmd->format, "Output format: text table or json")
      ->check(one_of({"text", "json"}))
      ->capture_default_str();
  sub->add_flag("--intra", cmd->intra, "Ranks inside one node (default: one rank per node)");
  sub->callback([cmd] { run_breakeven(*cmd); });
}

}  // namespace ccsim::cli
