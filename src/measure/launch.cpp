#include "measure/launch.hpp"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/spelling.hpp"

namespace ccsim::measure {
namespace {

std::vector<std::pair<std::string, std::string>> mpi_over_environment(const std::string& over) {
  if (over.empty()) return {};
  if (over == "shm") return {{"OMPI_MCA_btl", "self,vader"}};
  if (over == "tcp" || over.starts_with("tcp:")) {
    std::vector<std::pair<std::string, std::string>> env{{"OMPI_MCA_btl", "self,tcp"}};
    if (over.size() > 4) env.emplace_back("OMPI_MCA_btl_tcp_if_include", over.substr(4));
    return env;
  }
  throw UnknownNameError("command line", 0, "--mpi-over",
                         fmt::format("expected shm, tcp or tcp:IFACE (e.g. tcp:lo, tcp:eth0), got \"{}\"{}", over,
                                     did_you_mean(over.substr(0, over.find(':')), {"shm", "tcp"})));
}

/// The last well-formed --np of `args` in `out.np`; `out.bad_np` when any is malformed.
void read_np(LaunchArgs& out) {
  const std::vector<std::string>& args = out.args;
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
      out.bad_np = true;  // ccsim-measure says what it expects, and exits 2
      continue;
    }
    out.np = static_cast<int>(*np);
  }
}

}  // namespace

LaunchArgs parse_launch_args(const std::vector<std::string>& given) {
  LaunchArgs out;
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (given[i] == "--mpi-over" || given[i].starts_with("--mpi-over=")) {
      if (given[i] == "--mpi-over" && i + 1 == given.size()) {
        throw InputError("command line", 0, "--mpi-over", "expected shm, tcp or tcp:IFACE, got nothing");
      }
      out.mpi_over = given[i] == "--mpi-over" ? given[++i] : given[i].substr(11);
      continue;
    }
    out.args.push_back(given[i]);
  }
  read_np(out);
  return out;
}

LaunchPlan plan_launch(const LaunchArgs& args, const std::string& program, bool under_launcher, unsigned cores) {
  LaunchPlan plan;
  bool help = false;
  for (const std::string& a : args.args) help = help || a == "--help" || a == "-h";
  if (!under_launcher && !help && !args.bad_np) {
    plan.argv = {"mpirun", "-np", std::to_string(args.np)};
    if (args.np > static_cast<int>(cores)) plan.argv.emplace_back("--oversubscribe");
  }
  if (!args.mpi_over.empty() && under_launcher) {
    throw InputError("command line", 0, "--mpi-over",
                     "the job was started by an MPI launcher, which chose its transports already: set OMPI_MCA_btl "
                     "for that launcher instead");
  }
  plan.environment = mpi_over_environment(args.mpi_over);
  plan.argv.push_back(program);
  plan.argv.insert(plan.argv.end(), args.args.begin(), args.args.end());
  return plan;
}

bool under_mpi_launcher() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(var) != nullptr) return true;
  }
  return false;
}

std::string measure_program() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto program = (ec ? std::filesystem::path(".") : self.parent_path()) / "ccsim-measure";
  if (!std::filesystem::exists(program)) {
    throw InputError("command line", 0, "measure",
                     fmt::format("{} is missing: it is built with ccsim when MPI is installed", program.string()));
  }
  return program.string();
}

}  // namespace ccsim::measure
