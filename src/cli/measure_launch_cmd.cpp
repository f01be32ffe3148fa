// `ccsim measure ...`: starts the MPI program ccsim-measure (built beside ccsim), under
// mpirun unless this process was itself started by an MPI launcher.
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/measure_cmd.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/spelling.hpp"

namespace ccsim::cli {
namespace {

struct MeasureLaunch {
  int np = 2;
  /// --np malformed: ccsim-measure runs alone, to refuse it as it refuses any malformed option
  /// (exit 2, its own message), rather than mpirun with a count it cannot take.
  bool bad_np = false;
  std::string mpi_over;  ///< --mpi-over: shm, tcp or tcp:IFACE; "" leaves Open MPI's choice
  std::vector<std::string> args;
};

/// Restricts Open MPI's byte transfer layers for the job (environment of mpirun, which passes
/// OMPI_MCA_* on to the processes): shared memory only, or TCP only (through IFACE). ccsim-
/// measure reads them back into machine.mpi_path and its table's first line.
void select_mpi_path(const std::string& over) {
  if (over.empty()) return;
  if (over == "shm") {
    setenv("OMPI_MCA_btl", "self,vader", 1);
    return;
  }
  if (over == "tcp" || over.starts_with("tcp:")) {
    setenv("OMPI_MCA_btl", "self,tcp", 1);
    if (over.size() > 4) setenv("OMPI_MCA_btl_tcp_if_include", over.substr(4).c_str(), 1);
    return;
  }
  throw UnknownNameError("command line", 0, "--mpi-over",
                         fmt::format("expected shm, tcp or tcp:IFACE (e.g. tcp:lo, tcp:eth0), got \"{}\"{}", over,
                                     did_you_mean(over.substr(0, over.find(':')), {"shm", "tcp"})));
}

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
  if (!under_mpi_launcher() && !help && !launch.bad_np) {
    argv = {"mpirun", "-np", std::to_string(launch.np)};
    if (launch.np > static_cast<int>(std::thread::hardware_concurrency())) argv.emplace_back("--oversubscribe");
  }
  if (!launch.mpi_over.empty() && under_mpi_launcher()) {
    throw InputError("command line", 0, "--mpi-over",
                     "the job was started by an MPI launcher, which chose its transports already: set OMPI_MCA_btl "
                     "for that launcher instead");
  }
  select_mpi_path(launch.mpi_over);
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
      "run collectives for real over MPI or UCX (starts ccsim-measure with mpirun -np N, N from --np, default 2; "
      "--mpi-over shm|tcp|tcp:IFACE restricts Open MPI to shared memory or TCP, and the output says which ran; "
      "`ccsim measure --help` lists its options)");
  // Every argument goes to ccsim-measure, which knows the options (--help lists them, --np
  // too); --np, anywhere among them, is also the -np of mpirun. --mpi-over is the launcher's
  // own (it sets mpirun's environment) and is not passed on.
  cmd->set_help_flag();
  cmd->prefix_command();
  cmd->callback([launch, cmd] {
    launch->args.clear();
    const std::vector<std::string> given = cmd->remaining();
    for (std::size_t i = 0; i < given.size(); ++i) {
      if (given[i] == "--mpi-over" || given[i].starts_with("--mpi-over=")) {
        if (given[i] == "--mpi-over" && i + 1 == given.size()) {
          throw InputError("command line", 0, "--mpi-over", "expected shm, tcp or tcp:IFACE, got nothing");
        }
        launch->mpi_over = given[i] == "--mpi-over" ? given[++i] : given[i].substr(11);
        continue;
      }
      launch->args.push_back(given[i]);
    }
    const auto& args = launch->args;
    launch->bad_np = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::optional<std::int64_t> np;
      if (args[i] == "--np") {
        if (i + 1 < args.size()) np = parse_int(args[++i]);
      } else if (args[i].starts_with("--np=")) {
        np = parse_int(std::string_view(args[i]).substr(5));
      } else {
        continue;
      }
      if (!np || *np < 1 || *np > kMaxProcesses) {
        launch->bad_np = true;  // ccsim-measure says what it expects, and exits 2
        continue;
      }
      launch->np = static_cast<int>(*np);
    }
    run_measure_launch(*launch);
  });
}

}  // namespace ccsim::cli
