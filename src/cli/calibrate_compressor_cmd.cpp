#include <memory>
#include <string>

#include <fmt/format.h>

#include "calibrate/compressor_fit.hpp"
#include "cli/commands.hpp"
#include "cli/option_values.hpp"

namespace ccsim::cli {
namespace {

struct CalibrateCompressorCommand {
  std::string bench;
  std::string output;
  bool output_given = false;  ///< -o was given (perhaps as "", which write_output refuses)
  calibrate::CompressorFitOptions options;
};

void run_calibrate_compressor(const CalibrateCompressorCommand& cmd) {
  calibrate::CompressorBench bench = calibrate::read_compressor_bench(cmd.bench);
  calibrate::CompressorFitOptions options = cmd.options;
  options.command = calibrate::compressor_fit_command(cmd.bench, options);
  calibrate::CompressorFit fit = calibrate::fit_compressor(bench, options);
  if (!cmd.output_given || cmd.output == "-") {
    // The model is the result: on stdout; the fit's report goes to stderr.
    fmt::print(stderr, "{}", fit.report);
    write_output("-", fit.model_json);
    return;
  }
  write_output(cmd.output, fit.model_json);
  write_output("-", fmt::format("{}\nwrote {}\n", fit.report, cmd.output));
}

}  // namespace

void setup_calibrate_compressor(CLI::App& calibrate) {
  auto cmd = std::make_shared<CalibrateCompressorCommand>();
  CLI::App* sub = calibrate.add_subcommand(
      "compressor",
      "Fit a compressor model (ratio per error bound, t0 + bytes / rate per operation) to the measurements of "
      "ccsim_compressor_bench --json");
  sub->add_option("bench", cmd->bench, "Benchmark file (ccsim-compressor-bench v1)")->required();
  sub->add_option("-o,--output", cmd->output,
                  "Write the model here (e.g. models/compressors/NAME.json); default: stdout, report on stderr");
  sub->add_option("--name", cmd->options.name, "Model name (default: the codec's)");
  sub->add_option("--codec", cmd->options.codec, "Codec to fit when the file holds several");
  sub->add_option("--transfer", cmd->options.transfer,
                  "How the throughputs carry to other hardware: memory-bound (scale with memory bandwidth) or none")
      ->check(one_of({"memory-bound", "none"}))
      ->capture_default_str();
  sub->add_flag("--clamp-t0", cmd->options.clamp_t0,
                "Fit the rate with t0 = 0 where t0 comes out negative, instead of refusing (said in the model)");
  sub->callback([cmd, sub] {
    cmd->output_given = sub->count("--output") > 0;
    run_calibrate_compressor(*cmd);
  });
}

}  // namespace ccsim::cli
