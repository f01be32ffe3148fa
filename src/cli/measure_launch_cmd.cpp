// `ccsim measure ...`: starts the MPI program ccsim-measure (built beside ccsim), under
// mpirun unless this process was itself started by an MPI launcher.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/input_error.hpp"
#include "measure/launch.hpp"

namespace ccsim::cli {
namespace {

[[noreturn]] void exec(std::vector<std::string> argv) {
  std::vector<char*> pointers;
  for (auto& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  execvp(pointers[0], pointers.data());
  throw InputError("command line", 0, "measure", fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
}

void run_measure_launch(const measure::LaunchArgs& launch) {
  measure::LaunchPlan plan = measure::plan_launch(launch, measure::measure_program(), measure::under_mpi_launcher(),
                                                  std::thread::hardware_concurrency());
  for (const auto& [name, value] : plan.environment) setenv(name.c_str(), value.c_str(), 1);
  exec(std::move(plan.argv));
}

}  // namespace

void setup_measure(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "measure",
      "run collectives for real over MPI or UCX (starts ccsim-measure with mpirun -np N, N from --np, default 2; "
      "--mpi-over shm|tcp|tcp:IFACE restricts Open MPI to shared memory or TCP, and the output says which ran; "
      "`ccsim measure --help` lists its options)");
  // The arguments as measure::parse_launch_args splits them.
  cmd->set_help_flag();
  cmd->prefix_command();
  cmd->callback([cmd] { run_measure_launch(measure::parse_launch_args(cmd->remaining())); });
}

}  // namespace ccsim::cli
