#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ccsim::measure {

/// Bound of --np (of ccsim-measure, and of `ccsim measure`, which starts it).
inline constexpr std::int64_t kMaxProcesses = 1 << 20;

/// What `ccsim measure` was given: every argument goes to ccsim-measure, which knows the
/// options; --np, anywhere among them, is also the -np of mpirun; --mpi-over is the
/// launcher's own (it sets mpirun's environment) and is not passed on.
struct LaunchArgs {
  int np = 2;
  /// --np malformed: ccsim-measure runs alone, to refuse it as it refuses any malformed option
  /// (exit 2, its own message), rather than mpirun with a count it cannot take.
  bool bad_np = false;
  std::string mpi_over;           ///< shm, tcp or tcp:IFACE; "" leaves Open MPI's choice
  std::vector<std::string> args;  ///< for ccsim-measure: `given` without --mpi-over
};

/// Splits the arguments of `ccsim measure`; --mpi-over without a value is an InputError.
LaunchArgs parse_launch_args(const std::vector<std::string>& given);

/// How ccsim-measure is started: its command line and the environment to set first.
struct LaunchPlan {
  std::vector<std::string> argv;  ///< [mpirun -np N [--oversubscribe]] PROGRAM ARGS...
  /// Open MPI's byte transfer layers for --mpi-over (mpirun passes OMPI_MCA_* on to the
  /// processes; ccsim-measure reads them back into machine.mpi_path): shared memory only, or
  /// TCP only (through IFACE).
  std::vector<std::pair<std::string, std::string>> environment;
};

/// The plan for `args` and the program at `program`: under mpirun with -np, and
/// --oversubscribe beyond `cores`, unless the process was itself started by an MPI launcher
/// (`under_launcher`), asks for --help or gave a malformed --np. Throws InputError for
/// --mpi-over under a launcher (it chose its transports already), UnknownNameError for a
/// value of --mpi-over that is none of shm, tcp, tcp:IFACE.
LaunchPlan plan_launch(const LaunchArgs& args, const std::string& program, bool under_launcher, unsigned cores);

/// Whether an MPI launcher (mpirun, srun) started this process: one of the variables Open MPI,
/// MPICH and PMIx set is in its environment.
bool under_mpi_launcher();

/// The program ccsim-measure beside the running executable (/proc/self/exe; the working
/// directory when that cannot be read). An InputError when it is missing: it is built only
/// where MPI is installed.
std::string measure_program();

}  // namespace ccsim::measure
