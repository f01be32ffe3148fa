// `ccsim sweep SPEC.json|SPEC.toml`: the scenarios of a sweep spec (study/sweep.hpp), evaluated in
// worker processes (SimGrid is one engine per process) and, under an MPI launcher, spread over
// the MPI ranks and gathered on rank 0, which writes one row per scenario in scenario order.

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "core/input_error.hpp"
#include "core/progress.hpp"
#include "measure/communicator.hpp"
#include "measure/launch.hpp"
#include "study/sweep.hpp"
#include "study/sweep_runner.hpp"

namespace ccsim::cli {
namespace {

using Row = nlohmann::ordered_json;
using study::SweepEngine;
using study::SweepSpec;

struct SweepCommand {
  std::string spec;
  std::string format = "csv";
  std::string output = "-";
  std::string engine;       ///< "" : the spec's, else closed-form for collectives and sim for traces
  int jobs = 0;             ///< 0: one per core locally, one per MPI rank under a launcher
  bool throughput = false;  ///< print scenarios per second on stderr (always when stderr is a terminal)
};

void run_sweep(const SweepCommand& cmd) {
  SweepSpec spec = study::read_sweep_spec(cmd.spec);
  const SweepEngine engine = study::choose_sweep_engine(spec, cmd.engine);
  if (cmd.jobs < 0)
    throw InputError("command line", 0, "-j", fmt::format("expected 0 (one per core) or more, got \"{}\"", cmd.jobs));
  study::SweepRunner sweep(std::move(spec), engine, data_lookup());
  sweep.check_files();
  check_output_path(cmd.output);

  const std::size_t total = sweep.spec().scenarios.size();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> outcomes(total);
  auto work = [&](std::size_t i) { return sweep.evaluate(i); };
  if (measure::under_mpi_launcher()) {
    int argc = 1;
    std::string name = "ccsim";
    char* args[] = {name.data(), nullptr};
    char** argv = args;
    measure::MpiSession session(argc, argv);
    const measure::Communicator world = measure::Communicator::world();
    const std::vector<std::size_t> mine = study::rank_items(total, world.rank(), world.size());
    Progress progress(fmt::format("sweep, rank 0 of {}", world.size()), world.rank() == 0 && progress_wanted());
    const std::vector<std::string> done = study::run_in_workers(
        mine, cmd.jobs == 0 ? 1 : cmd.jobs, work,
        [&](std::size_t n) { progress.update(static_cast<double>(n) / static_cast<double>(mine.size())); });
    const std::vector<std::string> all = world.all_gather(study::pack_outcomes(mine, done));
    if (world.rank() != 0) return;  // rank 0 reports and writes
    for (const std::string& packed : all) study::unpack_outcomes(packed, outcomes);
  } else {
    const int jobs = cmd.jobs == 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) : cmd.jobs;
    Progress progress("sweep", progress_wanted());
    outcomes = study::run_in_workers(study::rank_items(total, 0, 1), jobs, work, [&](std::size_t n) {
      progress.update(static_cast<double>(n) / static_cast<double>(total));
    });
  }
  const std::vector<Row> rows = study::outcome_rows(outcomes);
  write_output(cmd.output, study::render_sweep_rows(sweep.spec(), engine, rows, cmd.format));
  if (!cmd.throughput && !progress_wanted()) return;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(stderr, "sweep: {} scenarios, {} rows in {:.2f} s: {:.2f} scenarios per second\n", total, rows.size(),
             seconds, static_cast<double>(total) / std::max(seconds, 1e-9));
}

}  // namespace

void setup_sweep(CLI::App& app) {
  auto cmd = std::make_shared<SweepCommand>();
  CLI::App* sub = app.add_subcommand(
      "sweep",
      "Evaluate the scenarios of a sweep spec (a grid or a list: platform x trace x --set x compressor x algorithm x "
      "size ...) in parallel, one CSV or JSON row per scenario in scenario order; under mpirun the scenarios are "
      "spread over the MPI ranks (docs/replay.md, \"Sweeps\")");
  sub->add_option("spec", cmd->spec, "Sweep spec, JSON or TOML (SPEC.toml; format in sweeps/README.md)")->required();
  sub->add_option("-f,--format", cmd->format, "Output format: csv or json")
      ->check(one_of({"csv", "json"}))
      ->capture_default_str();
  sub->add_option("-o,--output", cmd->output, "Write the rows here ('-': stdout)")->capture_default_str();
  sub->add_option("--engine", cmd->engine,
                  "sim (SimGrid replays: contention, overlap) or closed-form (the schedules' closed forms; the "
                  "collective mode only); default: the spec's, else closed-form for collectives, sim for traces")
      ->check(one_of({"sim", "closed-form"}));
  sub->add_option("-j,--jobs", cmd->jobs,
                  "Worker processes (0: one per core; under an MPI launcher, 0 means one per MPI rank)")
      ->capture_default_str();
  sub->add_flag("--throughput", cmd->throughput,
                "Print the scenarios, the rows, the wall time and the scenarios per second on stderr at the end "
                "(printed anyway when stderr is a terminal)");
  sub->callback([cmd] { run_sweep(*cmd); });
}

}  // namespace ccsim::cli
