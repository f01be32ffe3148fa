#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "calibrate/compute_fit.hpp"
#include "calibrate/compute_model.hpp"
#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "predict/prediction.hpp"
#include "trace/native_writer.hpp"

namespace ccsim::cli {
namespace {

/// `ccsim predict`: fit on traced runs, synthesise a configuration, replay it (predict::predict).
struct PredictCommand {
  predict::PredictOptions options;
  std::string format = "text";
  std::string trace_out;  ///< --write-trace
  std::string model_out;  ///< --write-model
  bool breakdown = false;
  std::string flop_exponent = "fit";  ///< --flop-exponent: fit | 1
};

void run_predict(PredictCommand& cmd) {
  cmd.options.flop_exponent = calibrate::flop_exponent_of(cmd.flop_exponent);
  cmd.options.outputs = {{"--write-trace", cmd.trace_out}, {"--write-model", cmd.model_out}};
  cmd.options.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  const predict::Prediction prediction = predict::predict(cmd.options, data_lookup());
  if (!cmd.trace_out.empty()) {
    std::ostringstream text;
    trace::write_native(prediction.trace, text, 1);  // one program per rank (synth::torch_program)
    write_output(cmd.trace_out, text.str());
  }
  if (!cmd.model_out.empty()) write_output(cmd.model_out, calibrate::write_compute_model(prediction.compute_model));
  write_output("-", cmd.format == "json" ? predict::prediction_json(prediction, cmd.breakdown)
                                         : predict::prediction_text(prediction, cmd.breakdown));
}

}  // namespace

void setup_predict(CLI::App& app) {
  auto cmd = std::make_shared<PredictCommand>();
  predict::PredictOptions& opt = cmd->options;
  CLI::App* sub = app.add_subcommand(
      "predict",
      "Predict the iteration time of a configuration that was not traced: fit compute and the traced backend's "
      "collectives on traced runs, synthesise the configuration (the PyTorch program of the shared runs), replay it; "
      "with a measurement, print predicted against measured");
  sub->add_option("runs", opt.runs,
                  "Traced runs to fit on: directories of rank<N>.json PyTorch profiles (with their summary.json) or "
                  "native traces")
      ->required();
  sub->add_option("--config", opt.config,
                  "summary.json of the run to predict: its configuration (flags override it) and its measured "
                  "iteration time; repeat it for repeated runs of one configuration, measured as the median of their "
                  "times")
      ->allow_extra_args(false);
  sub->add_option("--model", opt.model, "Model preset or file the sizes apply to")->capture_default_str();
  sub->add_option("--layers", opt.layers, "Transformer layers")->check(CLI::Range(1, 100000));
  sub->add_option("--hidden", opt.hidden, "Hidden size (the FFN keeps the model's ratio)")
      ->check(CLI::Range(1, 1 << 20));
  sub->add_option("--heads", opt.heads, "Attention heads")->check(CLI::Range(1, 1 << 14));
  sub->add_option("--seq", opt.seq, "Sequence length")->check(CLI::Range(1, 1 << 24));
  sub->add_option("--vocab", opt.vocab, "Vocabulary")->check(CLI::Range(1, 1 << 24));
  sub->add_option("--act", opt.act, "Activation")->check(one_of({"relu", "gelu"}));
  sub->add_option("--tp", opt.par.tp, "Tensor-parallel size")->capture_default_str();
  sub->add_option("--pp", opt.par.pp, "Pipeline stages (GPipe)")->capture_default_str();
  sub->add_option("--dp", opt.par.dp, "Data-parallel replicas")->capture_default_str();
  sub->add_option("--micro-batches", opt.par.micro_batches, "Micro-batches per iteration")->capture_default_str();
  sub->add_option("--micro-batch-size", opt.par.micro_batch_size, "Sequences per micro-batch")->capture_default_str();
  sub->add_option("--measured-ms", opt.measured_ms, "The measured iteration time to compare with (ms)");
  sub->add_option("--platform", opt.platform,
                  "Platform (NAME|FILE) the runs were traced on and the prediction replays on")
      ->capture_default_str();
  sub->add_flag("--traced", opt.traced,
                "Replay the first run as traced (its measured compute) instead of a synthesised trace: how well the "
                "replay reproduces a measured run");
  sub->add_flag("--scale-machine-speed", opt.scale_speed,
                "Scale each run's measured times by its GEMM probe over the target's (both from summary.json): for "
                "runs made in another state of the machine");
  sub->add_flag("--keep-profiler-overhead", opt.keep_profiler,
                "Fit on the profiled durations as they are (default: scaled to the iteration time summary.json "
                "measured without the profiler)");
  sub->add_flag("--breakdown", cmd->breakdown, "Also print the replay's per-operator breakdown");
  add_flop_exponent_option(sub, cmd->flop_exponent);
  sub->add_option("-f,--format", cmd->format, "Output format: text or json")
      ->check(one_of({"text", "json"}))
      ->capture_default_str();
  sub->add_option("--write-trace", cmd->trace_out,
                  "Also write the replayed trace (native format, with its durations; replayed with `ccsim replay` it "
                  "takes the platform's network, not the backend fitted here)");
  sub->add_option("--write-model", cmd->model_out, "Also write the fitted compute model (models/README.md)");
  sub->callback([cmd, sub] {
    cmd->options.given_tp = sub->count("--tp") > 0;
    cmd->options.given_pp = sub->count("--pp") > 0;
    cmd->options.given_dp = sub->count("--dp") > 0;
    cmd->options.given_micro_batches = sub->count("--micro-batches") > 0;
    cmd->options.given_micro_batch_size = sub->count("--micro-batch-size") > 0;
    run_predict(*cmd);
  });
}

}  // namespace ccsim::cli
