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
#include "study/breakeven_study.hpp"
#include "topology/platform.hpp"

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

void run_breakeven(const BreakevenCommand& cmd) {
  topology::Platform platform =
      topology::read_platform(topology::find_platform(cmd.platform, data_folders().platforms));
  compress::CompressSpec spec = compress::parse_compress_spec(cmd.compress);
  compress::CompressorModel model = compress::load_compressor(spec, data_folders().compressors);
  auto dtype = parse_dtype(cmd.dtype);
  if (!dtype)
    throw InputError("command line", 0, "--dtype",
                     fmt::format("expected one of {}, got \"{}\"", dtype_choices(), cmd.dtype));
  const study::BreakevenRequest request{cmd.plain_algorithm, cmd.algorithm, *dtype, cmd.at, cmd.sizes, cmd.intra};
  const study::BreakevenStudy s = study::study_breakeven(platform, model, spec.query, request);
  const compress::Evaluation& evaluation = s.evaluation;
  const compress::CompressorCost& c = evaluation.cost;
  const std::string ranks = cmd.intra ? "all in one node" : "one per node";

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
                       {"homomorphic", s.homomorphic}};
  if (s.homomorphic) doc["compressor"]["add_Bps"] = c.add_Bps;
  doc["notes"] = evaluation.notes;
  doc["links"] = {{"ranks", ranks},
                  {"latency_s", s.path.latency_s},
                  {"bandwidth_Bps", s.path.bandwidth_Bps},
                  {"reduce_Bps", s.reduce_Bps}};
  doc["at_bytes"] = s.at_bytes;
  doc["rows"] = nlohmann::ordered_json::array();
  std::string out;
  out += fmt::format("break-even of compressed all_reduce on {}: {} ({}), {}\n", platform.name, cmd.compress,
                     evaluation.basis, dtype_name(*dtype));
  out += fmt::format("compressor: ratio {:.4g}, compress {} + {:.3g} us, decompress {} + {:.3g} us{}\n", c.ratio,
                     format_rate(c.compress_Bps), c.compress_t0_s * 1e6, format_rate(c.decompress_Bps),
                     c.decompress_t0_s * 1e6,
                     s.homomorphic ? fmt::format(", homomorphic add {}", format_rate(c.add_Bps)) : std::string());
  for (const std::string& note : evaluation.notes) out += fmt::format("note: {}\n", note);
  out += fmt::format(
      "links: ranks {}, alpha {:.3g} us, bandwidth {} per flow, reduction {}; closed forms, no contention\n", ranks,
      s.path.latency_s * 1e6, format_rate(s.path.bandwidth_Bps), format_rate(s.reduce_Bps));
  out += fmt::format("{:>7}  {:<14}  {:<20}  {:>12}  {:>14}  {:>9}\n", "ranks", "plain", "compressed", "pays above",
                     fmt::format("speedup@{}", cmd.at), "ceiling");
  for (const study::BreakevenRow& r : s.rows) {
    const collective::BreakEven& even = r.even;
    out += fmt::format("{:>7}  {:<14}  {:<20}  {:>12}  {:>13.3f}x  {:>8.3f}x\n", r.ranks, r.plain_algorithm,
                       r.compressed_algorithm, bytes_or_never(even.bytes), r.speedup_at, even.speedup_limit);
    nlohmann::ordered_json row;
    row["ranks"] = r.ranks;
    row["plain_algorithm"] = r.plain_algorithm;
    row["compressed_algorithm"] = r.compressed_algorithm;
    // JSON has no infinity: "pays" says never / always / above, and pays_above_bytes is null unless above.
    row["pays"] = std::isinf(even.bytes) ? "never" : even.bytes <= 0 ? "always" : "above";
    row["pays_above_bytes"] =
        std::isinf(even.bytes) || even.bytes <= 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(even.bytes);
    row["speedup_at"] = r.speedup_at;
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
