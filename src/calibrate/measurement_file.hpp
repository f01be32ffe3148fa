#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ccsim::calibrate {

/// One measured point of a `ccsim-measurements` series: what ran and its median time.
struct SeriesPoint {
  std::string op;                    ///< all_reduce, all_gather, reduce_scatter
  std::string implementation;        ///< mpi-library or ccsim-schedule
  std::string algorithm;             ///< MPI_Allreduce, ring, compressed-ring, ...
  std::string transport;             ///< mpi or ucx
  std::optional<std::string> codec;  ///< the codec spec of a compressed series
  int group_size = 0;
  std::string group;        ///< the group kind it ran on (ccsim measure's "group"); "" when not recorded
  std::uint64_t bytes = 0;  ///< each rank's buffer
  double median_s = 0;
  std::optional<double> p10_s;  ///< the spread of the repetitions, when recorded
  std::optional<double> p90_s;
  std::optional<double> ratio;  ///< schedules only: raw bytes / wire bytes as measured
  /// The measurement's own result check (`check` of ccsim measure, `#wrong` of nccl-tests):
  /// empty when it passed or none was recorded, else what failed. A wrong result's time is
  /// not one to fit or validate a model on (select_series refuses it).
  std::string check_failure;
  std::string check_field;  ///< where the failure is recorded ("series[3].check.passed", "#wrong")
  int check_line = 0;
  std::string file;   ///< the file it was read from ("" when it was made otherwise)
  int line = 0;       ///< where the series object starts
  std::string field;  ///< its field path, "series[3]"
};

/// One point-to-point measurement: ping-pong (one-way time) or concurrent pairs.
struct P2pPoint {
  std::string pattern;  ///< ping-pong or pairs
  std::string transport;
  int pairs = 0;
  std::uint64_t bytes = 0;
  double median_s = 0;
};

/// What calibration needs of a measurement file (format "ccsim-measurements", version 1,
/// src/measure/README.md): the process count, the series points and the p2p points.
struct MeasurementFile {
  std::string file;
  int processes = 0;
  int nodes = 0;
  int cores_per_node = 0;  ///< 0: not recorded
  std::string cpu;
  /// Single-core memory bandwidth of the machine (machine.memory_Bps, bytes/s; 0: not recorded,
  /// as in files written before 2026-12-02).
  double memory_Bps = 0;
  /// Each process's CPUs (machine.affinity, per world rank: "0", "0-1"); empty when not recorded.
  std::vector<std::string> affinity;
  /// The link scripts/slowlink.sh emulated during the run (machine.emulated_link), as
  /// "key value, ..." in the file's order; empty when none was up (or not recorded, before
  /// 2026-12-02).
  std::string emulated_link;
  /// The rate of the link each process had to itself when the emulated link gave each port its
  /// own classes (machine.emulated_link: links per-port, rate in tc's units), bytes/s; 0 when
  /// not measured through such a link.
  double link_Bps = 0;
  /// The MPI library's protocol limits recorded by ccsim measure (machine.protocol_limits:
  /// "btl_tcp_eager_limit" -> 65536, ...), by name.
  std::vector<std::pair<std::string, std::uint64_t>> protocol_limits;
  std::vector<SeriesPoint> series;
  std::vector<P2pPoint> p2p;
};

/// How many processes shared each core in the run: processes per node / cores per node when
/// the processes outnumber the cores (4 processes on 2 cores: 2), else 1 (and 1 when the file
/// does not record its cores). Over shared memory and loopback TCP every byte is moved by a
/// CPU, and a busy-polling MPI process on a shared core gets that share of it, so every
/// message and reduction of such a run takes this factor longer than the network model says.
double core_sharing(const MeasurementFile& file);
/// How the processes could use the CPUs (machine.affinity): "every process on CPUs 0-1" or
/// "per process: 0 | 1" (the first 16); "" when the file does not record it. Processes bound
/// to cores and processes the OS moves among them time the same series differently.
std::string affinity_summary(const MeasurementFile& file);

/// Reads a measurement file strictly: the keys calibration uses are checked (type, range),
/// the other documented keys are allowed, anything else is an InputError naming file, line
/// and field.
MeasurementFile read_measurements(const std::string& path);
MeasurementFile parse_measurements(std::string_view text, const std::string& source);

/// A rate in tc's units as scripts/slowlink.sh takes it (a number and bit, kbit, mbit, gbit,
/// tbit: bits per second; bps, kbps, mbps, gbps, tbps: bytes per second; k = 1000), in bytes
/// per second; 0 when `text` is not one.
double tc_rate_Bps(const std::string& text);

}  // namespace ccsim::calibrate
