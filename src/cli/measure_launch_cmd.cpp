// `ccsim measure ...`: starts the MPI program ccsim-measure (built beside ccsim), under
// mpirun unless this process was itself started by an MPI launcher.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/input_error.hpp"

namespace ccsim::cli {
namespace {

struct MeasureLaunch {
  int np = 2;
  std::vector<std::string> args;
};

[[noreturn]] void exec(std::vector<std::string> argv) {
  std::vector<char*> pointers;
  for (auto& a : argv) pointers.push_back(a.data());
  pointers.push_back(nullptr);
  execvp(pointers[0], pointers.data());
  throw InputError("command line", 0, "measure", fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
}

void run_measure_launch(const MeasureLaunch& launch) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto program = (ec ? std::filesystem::path(".") : self.parent_path()) / "ccsim-measure";
  if (!std::filesystem::exists(program)) {
    throw InputError("command line", 0, "measure",
                     fmt::format("{} is missing: it is built with ccsim when MPI is installed", program.string()));
  }
  std::vector<std::string> argv;
  bool help = false;
  for (const auto& a : launch.args) help = help || a == "--help" || a == "-h";
  if (!under_mpi_launcher() && !help) {
    argv = {"mpirun", "-np", std::to_string(launch.np)};
    if (launch.np > static_cast<int>(std::thread::hardware_concurrency())) argv.emplace_back("--oversubscribe");
  }
  argv.push_back(program.string());
  argv.insert(argv.end(), launch.args.begin(), launch.args.end());
  exec(std::move(argv));
}

}  // namespace

bool under_mpi_launcher() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(var) != nullptr) return true;
  }
  return false;
}

void setup_measure(CLI::App& app) {
  auto launch = std::make_shared<MeasureLaunch>();
  CLI::App* cmd = app.add_subcommand(
      "measure",
      "run collectives for real over MPI or UCX (starts ccsim-measure with mpirun -np N; "
      "`ccsim measure --help` lists its options)");
  cmd->set_help_flag();  // --help goes to ccsim-measure, which knows the options
  cmd->prefix_command();
  cmd->add_option("--np", launch->np, "processes mpirun starts (when not already started by an MPI launcher)")
      ->check(CLI::PositiveNumber);
  cmd->callback([launch, cmd] {
    launch->args = cmd->remaining();
    run_measure_launch(*launch);
  });
}

}  // namespace ccsim::cli
