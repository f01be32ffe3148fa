#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "collective/registry.hpp"
#include "study/breakeven_study.hpp"

namespace ccsim::cli {
namespace {

struct BreakevenCommand {
  study::BreakevenArgs args;
  std::string format = "text";
};

void run_breakeven(const BreakevenCommand& cmd) {
  const study::BreakevenStudy s = study::study_breakeven(cmd.args, data_lookup());
  const std::string& compress = cmd.args.compress;
  write_output("-", cmd.format == "json" ? study::breakeven_json(s, compress) : study::breakeven_text(s, compress));
}

}  // namespace

void setup_breakeven(CLI::App& app) {
  auto cmd = std::make_shared<BreakevenCommand>();
  CLI::App* sub = app.add_subcommand(
      "breakeven",
      "For a range of group sizes, the all_reduce size above which compression pays on a platform and the speedup "
      "ceiling (closed forms of the schedules, alpha-beta-gamma plus compression terms, no contention)");
  sub->add_option("-p,--platform", cmd->args.platform, "Platform preset name or platform file")->required();
  sub->add_option("--compress", cmd->args.compress, "Compressor NAME[:key=value,...], as for replay")->required();
  sub->add_option("--sizes", cmd->args.request.sizes, "Group sizes (default: 2, 4, ... up to the nodes, at most 1024)")
      ->delimiter(',');
  sub->add_option("--plain-algo", cmd->args.request.plain_algorithm, "Plain all_reduce algorithm to beat")
      ->check(
          one_of(algorithm_choices(collective::plain_all_reduce_algorithms(collective::NodeLayout::kUnknown), false)))
      ->capture_default_str();
  sub->add_option("--algo", cmd->args.request.algorithm, "Compressed algorithm; 'auto' follows the compressor's kind")
      ->check(one_of(algorithm_choices(collective::compressed_all_reduce_algorithms(), true)))
      ->capture_default_str();
  sub->add_option("--dtype", cmd->args.dtype, "Element type of the buffer")->capture_default_str();
  sub->add_option("--at", cmd->args.request.at, "Also print the speedup at this buffer size")->capture_default_str();
  sub->add_option("-f,--format", cmd->format, "Output format: text table or json")
      ->check(one_of({"text", "json"}))
      ->capture_default_str();
  sub->add_flag("--intra", cmd->args.request.intra, "Ranks inside one node (default: one rank per node)");
  sub->callback([cmd] { run_breakeven(*cmd); });
}

}  // namespace ccsim::cli
