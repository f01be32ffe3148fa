#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "calibrate/kernel_trace.hpp"
#include "calibrate/profile_fit.hpp"
#include "cli/commands.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"

namespace ccsim::cli {
namespace {

struct CalibrateComputeCommand {
  std::vector<std::string> gemm;
  std::vector<std::string> memory;
  std::vector<std::string> profiles;
  std::string launch;
  std::string output;
  bool output_given = false;  ///< -o was given (perhaps as "", which write_output refuses)
  std::string name;
  std::string accelerator;
  std::string description;
  int multiprocessors = 0;
  std::vector<std::string> peaks;
  std::string default_dtype = "bf16";
  std::vector<std::string> sources;
};

/// "bf16=9.894e14" -> {bf16, 9.894e14}.
topology::DTypePeak parse_peak(const std::string& text) {
  const auto eq = text.find('=');
  std::optional<DType> dtype = eq == std::string::npos ? std::nullopt : parse_dtype(text.substr(0, eq));
  std::optional<double> flops = eq == std::string::npos ? std::nullopt : parse_double(text.substr(eq + 1));
  if (!dtype || !flops || !(*flops > 0)) {
    throw InputError(
        "command line", 0, "--peak",
        fmt::format("expected DTYPE=FLOPS with DTYPE one of {} and FLOPS positive, got \"{}\"", dtype_choices(), text));
  }
  return {*dtype, *flops};
}

std::string command_line(const CalibrateComputeCommand& cmd) {
  std::string out = "ccsim calibrate compute";
  for (const std::string& f : cmd.gemm) out += " --gemm " + f;
  for (const std::string& f : cmd.memory) out += " --memory " + f;
  for (const std::string& f : cmd.profiles) out += " --profile " + f;
  if (!cmd.launch.empty()) out += " --launch " + cmd.launch;
  out += fmt::format(" --name {} --accelerator \"{}\" --multiprocessors {}", cmd.name, cmd.accelerator,
                     cmd.multiprocessors);
  for (const std::string& p : cmd.peaks) out += " --peak " + p;
  if (cmd.default_dtype != "bf16") out += " --default-dtype " + cmd.default_dtype;
  if (!cmd.description.empty()) out += fmt::format(" --description \"{}\"", cmd.description);
  for (const std::string& s : cmd.sources) out += fmt::format(" --source \"{}\"", s);
  if (cmd.output_given) out += " -o " + cmd.output;
  return out;
}

void run_calibrate_compute(const CalibrateComputeCommand& cmd) {
  calibrate::ProfileFitOptions options;
  options.name = cmd.name;
  options.accelerator = cmd.accelerator;
  options.multiprocessors = cmd.multiprocessors;
  for (const std::string& p : cmd.peaks) options.peaks.push_back(parse_peak(p));
  std::optional<DType> dtype = parse_dtype(cmd.default_dtype);
  if (!dtype) {
    throw InputError("command line", 0, "--default-dtype",
                     fmt::format("expected one of {}, got \"{}\"", dtype_choices(), cmd.default_dtype));
  }
  options.default_dtype = *dtype;
  options.sources = cmd.sources;
  options.description = cmd.description;
  options.command = command_line(cmd);
  const calibrate::ProfileFit fit =
      calibrate::fit_profile_files({cmd.gemm, cmd.memory, cmd.profiles, cmd.launch}, options);
  const std::string json = topology::write_accelerator_profile(fit.profile);
  if (!cmd.output_given || cmd.output == "-") {
    fmt::print(stderr, "{}", fit.report);  // the profile is the result, on stdout
    write_output("-", json);
    return;
  }
  write_output(cmd.output, json);
  write_output("-", fmt::format("{}wrote {}\n", fit.report, cmd.output));
}

}  // namespace

void setup_calibrate_compute(CLI::App& calibrate) {
  auto cmd = std::make_shared<CalibrateComputeCommand>();
  CLI::App* sub = calibrate.add_subcommand(
      "compute",
      "Fit an accelerator profile (models/compute/NAME.json: matrix products by tiles and waves, memory-bound kernels, "
      "launch overhead) to kernel measurements");
  sub->add_option("--gemm", cmd->gemm,
                  "GEMM sweep CSV with columns m, n, k, dtype, seconds (batch optional, others ignored); repeatable: a "
                  "later file's timing of a product replaces an earlier one's (CUDA-graph re-timings of small ones)");
  sub->add_option("--memory", cmd->memory,
                  "Memory-bound kernels CSV with columns op, bytes, seconds; repeatable, as --gemm");
  sub->add_option("--profile", cmd->profiles,
                  "torch.profiler trace (JSON or .json.gz) recorded with CUDA activities and record_shapes=True: "
                  "its matrix products and memory-bound operators, timed by their kernels' device durations; "
                  "repeatable, read after the CSVs (its timing of a product replaces theirs)");
  sub->add_option("--launch", cmd->launch, "Launch CSV with columns mode (eager, graph), seconds_per_kernel");
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
    if (cmd->gemm.empty() && cmd->profiles.empty()) {
      throw CLI::RequiredError("--gemm or --profile (a GEMM sweep or a profiler trace to fit)");
    }
    cmd->output_given = sub->count("--output") > 0;
    run_calibrate_compute(*cmd);
  });
}

}  // namespace ccsim::cli
