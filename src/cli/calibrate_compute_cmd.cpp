#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "calibrate/kernel_trace.hpp"
#include "cli/commands.hpp"

namespace ccsim::cli {
namespace {

void run_calibrate_compute(const calibrate::ProfileFitArgs& args) {
  const calibrate::ProfileFit fit = calibrate::fit_profile_files(args.files, calibrate::profile_fit_options(args));
  const std::string json = topology::write_accelerator_profile(fit.profile);
  if (!args.output_given || args.output == "-") {
    fmt::print(stderr, "{}", fit.report);  // the profile is the result, on stdout
    write_output("-", json);
    return;
  }
  write_output(args.output, json);
  write_output("-", fmt::format("{}wrote {}\n", fit.report, args.output));
}

}  // namespace

void setup_calibrate_compute(CLI::App& calibrate) {
  auto cmd = std::make_shared<calibrate::ProfileFitArgs>();
  CLI::App* sub = calibrate.add_subcommand(
      "compute",
      "Fit an accelerator profile (models/compute/NAME.json: matrix products by tiles and waves, memory-bound kernels, "
      "launch overhead) to kernel measurements");
  sub->add_option("--gemm", cmd->files.gemm,
                  "GEMM sweep CSV with columns m, n, k, dtype, seconds (batch optional, others ignored); repeatable: a "
                  "later file's timing of a product replaces an earlier one's (CUDA-graph re-timings of small ones)");
  sub->add_option("--memory", cmd->files.memory,
                  "Memory-bound kernels CSV with columns op, bytes, seconds; repeatable, as --gemm");
  sub->add_option("--profile", cmd->files.traces,
                  "torch.profiler trace (JSON or .json.gz) recorded with CUDA activities and record_shapes=True: "
                  "its matrix products and memory-bound operators, timed by their kernels' device durations; "
                  "repeatable, read after the CSVs (its timing of a product replaces theirs)");
  sub->add_option("--launch", cmd->files.launch, "Launch CSV with columns mode (eager, graph), seconds_per_kernel");
  sub->add_option("-o,--output", cmd->output, "Write the profile here; default: stdout, report on stderr");
  sub->add_option("--name", cmd->name, "Profile name, e.g. h200")->required();
  sub->add_option("--accelerator", cmd->accelerator, "The accelerator model measured")->required();
  sub->add_option("--multiprocessors", cmd->multiprocessors, "Streaming multiprocessors (or compute units)")
      ->required()
      ->check(CLI::Range(1, 1 << 20));
  sub->add_option("--peak", cmd->peaks,
                  "Dense peak of a dtype's products, DTYPE=FLOPS (repeatable), e.g. bf16=9.894e14")
      ->required();
  sub->add_option("--default-dtype", cmd->default_dtype, "Dtype of operators given in FLOPs only")
      ->capture_default_str();
  sub->add_option("--description", cmd->description, "What the profile describes, in a sentence");
  sub->add_option("--source", cmd->sources, "Where a figure comes from (repeatable; written into the profile)");
  sub->callback([cmd, sub] {
    if (cmd->files.gemm.empty() && cmd->files.traces.empty()) {
      throw CLI::RequiredError("--gemm or --profile (a GEMM sweep or a profiler trace to fit)");
    }
    cmd->output_given = sub->count("--output") > 0;
    run_calibrate_compute(*cmd);
  });
}

}  // namespace ccsim::cli
