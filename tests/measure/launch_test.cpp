// How `ccsim measure` starts ccsim-measure (measure/launch.hpp): which arguments go on, which
// --np mpirun gets, when it runs without mpirun, and the environment of --mpi-over.
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "measure/launch.hpp"

using namespace ccsim;
using Strings = std::vector<std::string>;
using Environment = std::vector<std::pair<std::string, std::string>>;

TEST_CASE("the launcher keeps --mpi-over; every other argument goes to ccsim-measure", "[measure]") {
  const measure::LaunchArgs a = measure::parse_launch_args({"--np", "4", "--mpi-over", "tcp:lo", "--sizes", "1KiB"});
  CHECK(a.np == 4);
  CHECK_FALSE(a.bad_np);
  CHECK(a.mpi_over == "tcp:lo");
  CHECK(a.args == Strings{"--np", "4", "--sizes", "1KiB"});
  CHECK(measure::parse_launch_args({"--mpi-over=shm"}).mpi_over == "shm");
  CHECK(measure::parse_launch_args({}).np == 2);  // the default
  CHECK_THROWS_WITH(measure::parse_launch_args({"--sizes", "1KiB", "--mpi-over"}),
                    "command line: field '--mpi-over': expected shm, tcp or tcp:IFACE, got nothing");
}

TEST_CASE("the last well-formed --np counts, and a malformed one is left to ccsim-measure", "[measure]") {
  CHECK(measure::parse_launch_args({"--np=3", "--np", "8"}).np == 8);
  for (const Strings& bad : {Strings{"--np", "0"}, Strings{"--np=many"}, Strings{"--np", "1048577"}, Strings{"--np"}}) {
    CAPTURE(bad);
    const measure::LaunchArgs a = measure::parse_launch_args(bad);
    CHECK(a.bad_np);
    // Started alone, so that it refuses the count with its own message.
    CHECK(measure::plan_launch(a, "/bin/ccsim-measure", false, 16).argv.front() == "/bin/ccsim-measure");
  }
}

TEST_CASE("ccsim-measure runs under mpirun unless a launcher started ccsim or --help is asked", "[measure]") {
  measure::LaunchArgs a = measure::parse_launch_args({"--np", "4", "--reps", "3"});
  CHECK(measure::plan_launch(a, "P", false, 16).argv == Strings{"mpirun", "-np", "4", "P", "--np", "4", "--reps", "3"});
  CHECK(measure::plan_launch(a, "P", false, 2).argv ==
        Strings{"mpirun", "-np", "4", "--oversubscribe", "P", "--np", "4", "--reps", "3"});  // 4 ranks on 2 cores
  CHECK(measure::plan_launch(a, "P", true, 16).argv == Strings{"P", "--np", "4", "--reps", "3"});
  CHECK(measure::plan_launch(measure::parse_launch_args({"-h"}), "P", false, 16).argv == Strings{"P", "-h"});
  CHECK(measure::plan_launch(a, "P", false, 16).environment.empty());
}

TEST_CASE("the launcher's --mpi-over restricts Open MPI's transports through mpirun's environment", "[measure]") {
  measure::LaunchArgs a;
  a.mpi_over = "shm";
  CHECK(measure::plan_launch(a, "P", false, 16).environment == Environment{{"OMPI_MCA_btl", "self,vader"}});
  a.mpi_over = "tcp";
  CHECK(measure::plan_launch(a, "P", false, 16).environment == Environment{{"OMPI_MCA_btl", "self,tcp"}});
  a.mpi_over = "tcp:eth0";
  CHECK(measure::plan_launch(a, "P", false, 16).environment ==
        Environment{{"OMPI_MCA_btl", "self,tcp"}, {"OMPI_MCA_btl_tcp_if_include", "eth0"}});
  a.mpi_over = "smh";
  CHECK_THROWS_WITH(measure::plan_launch(a, "P", false, 16),
                    "command line: field '--mpi-over': expected shm, tcp or tcp:IFACE (e.g. tcp:lo, tcp:eth0), got "
                    "\"smh\"; did you mean shm?");
  CHECK_THROWS_AS(measure::plan_launch(a, "P", false, 16), UnknownNameError);
  a.mpi_over = "shm";
  CHECK_THROWS_WITH(measure::plan_launch(a, "P", true, 16),
                    "command line: field '--mpi-over': the job was started by an MPI launcher, which chose its "
                    "transports already: set OMPI_MCA_btl for that launcher instead");
}

TEST_CASE("ccsim measure finds ccsim-measure beside itself, or says it is missing", "[measure]") {
  // This test program is built in tests/, ccsim-measure beside ccsim: not here.
  CHECK_THROWS_WITH(measure::measure_program(),
                    Catch::Contains("ccsim-measure is missing: it is built with ccsim when MPI is installed"));
}

TEST_CASE("an MPI launcher is known by its environment", "[measure]") {
  const char* vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"};
  std::vector<std::pair<std::string, std::string>> saved;
  for (const char* var : vars) {
    if (const char* value = std::getenv(var)) saved.emplace_back(var, value);
    ::unsetenv(var);
  }
  CHECK_FALSE(measure::under_mpi_launcher());
  ::setenv("PMIX_RANK", "0", 1);
  CHECK(measure::under_mpi_launcher());
  ::unsetenv("PMIX_RANK");
  for (const auto& [var, value] : saved) ::setenv(var.c_str(), value.c_str(), 1);
}
