// What `ccsim measure` says carried Open MPI's messages (measure::mpi_path): the table's first
// line and machine.mpi_path.
#include <catch2/catch.hpp>

#include "measure/measurement.hpp"

using ccsim::measure::mpi_path;

TEST_CASE("processes of one node without --mpi-over are said to use shared memory", "[measure]") {
  // It said "as Open MPI chooses (shared memory ... ; a network BTL between nodes)" for 2
  // processes of one node, leaving the reader to work out that no network was measured.
  CHECK(mpi_path("", "", 1, 2) ==
        "shared memory (vader), as Open MPI does between processes of one node: all 2 processes ran on one node; "
        "ccsim measure --mpi-over tcp:lo measures TCP instead");
  CHECK(mpi_path("", "", 1, 1).find(": the process ran on one node;") != std::string::npos);
  CHECK(mpi_path("", "", 4, 8) ==
        "as Open MPI chooses: shared memory (vader) between processes of one node, a network BTL between the 4 "
        "nodes; ccsim measure --mpi-over shm|tcp[:IFACE] selects one");
}

TEST_CASE("a BTL selection is reported as given", "[measure]") {
  CHECK(mpi_path("self,tcp", "lo", 1, 2) == "TCP (OMPI_MCA_btl=self,tcp) through interface lo");
  CHECK(mpi_path("self,tcp", "", 2, 2) == "TCP (OMPI_MCA_btl=self,tcp), any interface");
  CHECK(mpi_path("self,vader", "", 1, 2) == "shared memory (OMPI_MCA_btl=self,vader)");
  CHECK(mpi_path("self,vader,tcp", "", 2, 4) == "OMPI_MCA_btl=self,vader,tcp");
}
