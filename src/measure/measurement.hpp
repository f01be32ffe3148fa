#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "collective/registry.hpp"

namespace ccsim::measure {

class Communicator;

/// How the world is cut into process groups: world rank w has tensor index w % tp, pipeline
/// index (w / tp) % pp and data-parallel index w / (tp * pp) (Megatron's order).
struct Layout {
  int tp = 0;  ///< 0: the whole world is one tensor-parallel group
  int pp = 1;
  int dp = 0;  ///< 0: whatever remains
};

/// What `ccsim measure` runs. Sizes are the bytes of each rank's buffer (the all_reduce's
/// vector; all_gather's gathered output; reduce_scatter's input).
struct MeasureOptions {
  std::vector<collective::Collective> ops = {collective::Collective::kAllReduce};
  /// "mpi" (the MPI library's own collective), or schedule algorithms of the registry
  /// ("ring", "recursive-doubling", ..., "compressed-ring", ...).
  std::vector<std::string> algorithms = {"mpi", "ring"};
  std::vector<std::string> transports = {"mpi"};  ///< for the schedules: "mpi", "ucx"
  /// Codec spec for the compressed algorithms ("ccsz:rel=1e-3": rel is taken of the global
  /// value range of the inputs and becomes abs=).
  std::string codec = "ccsz:rel=1e-3";
  bool error_feedback = false;  ///< compress with error feedback (quantizers)
  std::vector<std::uint64_t> sizes;
  int warmup = 2;
  int reps = 10;
  double max_seconds_per_size = 10;  ///< fewer repetitions (>= 3) when one takes longer
  /// The sweep over every series is made this many times, each round with its share of the
  /// repetitions (and its own warm-up), and each series pools its rounds' samples: a slow
  /// spell of a shared machine then falls on every size alike instead of on the few sizes
  /// measured during it. 1: every repetition of a series one after the other.
  int rounds = 1;
  Layout layout;
  std::vector<std::string> groups = {"world"};  ///< "world", "tp", "pp", "dp"
  std::string data;                             ///< an fp32 file to take inputs from; empty: synthetic gradients
  std::uint64_t seed = 1;
  bool p2p = false;  ///< also ping-pong and concurrent pairs over each transport (2 processes or more)
  int np = 0;        ///< the processes asked for (--np); 0: not given. Must be the job's size.
  std::string command_line;
  /// Where rank 0 prints its table as the series run: stdout when the measurement JSON goes to
  /// a file, stderr when it goes to stdout.
  bool table_on_stdout = false;
};

/// Where scripts/slowlink.sh keeps the settings of the link it emulates while it is up;
/// `ccsim measure` records them as machine.emulated_link.
inline constexpr const char* kSlowlinkSettings = "/run/ccsim-slowlink.conf";

/// An error of the input that every rank of the job raised together: run_measurements checks
/// what needs the job (its size, the layout, the data) on every rank and the ranks agree on
/// the outcome before any measurement. Rank 0 reports it and every rank ends, with no
/// collective. what() is the InputError's message.
class JobError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Runs the measurements on every process of the world (a collective call) and returns the
/// measurement document (format "ccsim-measurements", see measure/README.md) on rank 0,
/// null elsewhere. Progress and a summary table go to stderr on rank 0. Every result is
/// checked against the MPI library's reference; a failed check is recorded in the
/// document and counted in its "failed_checks". A refusal of the input that the ranks agreed
/// on is a JobError on every rank; any other exception may be some ranks' alone (the others
/// then wait in a collective): the caller must end the job (MpiSession::abort_job).
nlohmann::ordered_json run_measurements(const MeasureOptions& options);

/// A codec spec with "rel=X" (relative to the value range of the data) made absolute:
/// "ccsz:rel=1e-3" with range 0.3 -> "ccsz:abs=0.0003"; other specs are returned unchanged.
/// Throws InputError (field "rel") for a bound that is not a positive number.
std::string absolute_codec_spec(const std::string& spec, double value_range);

/// Checks that `path` (--data) is a file of raw fp32 data that can be read (not a directory,
/// a non-zero multiple of 4 bytes) and notes it as an input of the command, so that the
/// output may not replace it. Throws InputError naming the file and --data.
void check_data_file(const std::string& path);

/// What carried Open MPI's messages, for the table's first line and machine.mpi_path: from
/// the BTL selection the job ran with (`btl`, OMPI_MCA_btl as `ccsim measure --mpi-over` sets
/// it, and `tcp_interface`, OMPI_MCA_btl_tcp_if_include; "" when unset) and where its
/// `processes` ran. With no selection, Open MPI takes shared memory (vader) between processes
/// of one node: on one node that is what was measured, and the sentence says so and how to
/// measure TCP instead.
std::string mpi_path(std::string_view btl, std::string_view tcp_interface, std::size_t nodes, int processes);

/// The transports this build can use ("mpi", and "ucx" when built with UCX), and why the
/// others are absent.
std::vector<std::string> available_transports();
std::string transports_note();

}  // namespace ccsim::measure
