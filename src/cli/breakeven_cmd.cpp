#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "collective/registry.hpp"
#include "compress/compress_spec.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
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
  write_output("-",
               cmd.format == "json" ? study::breakeven_json(s, cmd.compress) : study::breakeven_text(s, cmd.compress));
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
