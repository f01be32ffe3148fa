#include "calibrate/benchmark_output.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include <fmt/format.h>

#include "collective/algorithm.hpp"
#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/parse.hpp"
#include "core/text_lines.hpp"

namespace ccsim::calibrate {
namespace {

constexpr int kMaxRanks = 1 << 24;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_whitespace(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::vector<std::string_view> split_commas(std::string_view line) {
  std::vector<std::string_view> cells;
  while (true) {
    const std::size_t comma = line.find(',');
    cells.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return cells;
}

std::uint64_t read_bytes_cell(std::string_view cell, const std::string& source, int line, const std::string& field) {
  const std::optional<std::uint64_t> bytes = parse_uint(cell);
  if (!bytes || *bytes == 0) {
    throw InputError(source, line, field, fmt::format("expected a positive whole number of bytes, got \"{}\"", cell));
  }
  return *bytes;
}

/// A time in microseconds (or seconds: `scale` 1) to seconds, positive and finite.
double read_time_cell(std::string_view cell, double scale, const std::string& source, int line,
                      const std::string& field) {
  const std::optional<double> t = parse_double(cell);
  if (!t || !(*t > 0) || *t * scale > 1e6) {
    throw InputError(source, line, field, fmt::format("expected a positive time (at most 10^6 s), got \"{}\"", cell));
  }
  return *t * scale;
}

int resolve_ranks(std::optional<int> given, std::optional<int> in_file, const std::string& source, const char* how) {
  if (given && (*given < 1 || *given > kMaxRanks)) {
    throw InputError("command line", 0, "--ranks", fmt::format("expected 1..{}, got \"{}\"", kMaxRanks, *given));
  }
  if (in_file && given && *in_file != *given) {
    throw InputError(source, 0, "ranks",
                     fmt::format("the file says {} ranks ({}) but --ranks says {}", *in_file, how, *given));
  }
  if (in_file) return *in_file;
  if (given) return *given;
  throw InputError(source, 0, "--ranks",
                   fmt::format("this file does not say how many ranks ran ({}); give it with --ranks N", how));
}

SeriesPoint library_point(const std::string& implementation, const std::string& algorithm, const std::string& transport,
                          int ranks, std::uint64_t bytes, double time_s, int line, const std::string& field) {
  SeriesPoint p;
  p.op = "all_reduce";
  p.implementation = implementation;
  p.algorithm = algorithm;
  p.transport = transport;
  p.group_size = ranks;
  p.bytes = bytes;
  p.median_s = time_s;
  p.line = line;
  p.field = field;
  return p;
}

void require_points(const MeasurementFile& m, const std::string& source, const char* what) {
  if (m.series.empty() && m.p2p.empty()) {
    throw InputError(source, 0, "", fmt::format("no measurements found in this {} output", what));
  }
}

// OSU micro-benchmarks: "# OSU MPI Allreduce Latency Test v7.1", optional "# Datatype: ...",
// a column header "# Size  Avg Latency(us) [Min Latency(us) Max Latency(us) Iterations]",
// then "SIZE TIME ..." rows. osu_latency ("# OSU MPI Latency Test") gives one-way latencies
// of a ping-pong between two processes.
/// Long: one pass over an OSU output's lines (title, header, rows), each line's errors where it is read.
MeasurementFile parse_osu(std::string_view text, const std::string& source, std::optional<int> ranks) {
  MeasurementFile m;
  m.file = source;
  m.nodes = 0;
  bool allreduce = false;
  bool latency = false;
  bool header_seen = false;
  int time_column = -1;
  for (const auto& [number, raw] : split_lines(text)) {
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line.front() == '#') {
      const std::string l = ascii_lower(line);
      if (l.find("# osu") == 0) {
        const bool was_allreduce = allreduce, was_latency = latency;
        allreduce = l.find("allreduce") != std::string::npos;
        latency = l.find(" latency test") != std::string::npos && !allreduce && l.find("multi") == std::string::npos &&
                  l.find("bandwidth") == std::string::npos;
        if (!allreduce && !latency) {
          throw InputError(source, number, "header",
                           fmt::format("unsupported OSU benchmark \"{}\": calibration reads osu_allreduce and "
                                       "osu_latency output",
                                       trim(line.substr(1))));
        }
        // Runs of one benchmark may follow each other (their headers repeat); of two, the
        // points of one would be read with the other's process count.
        if ((was_allreduce && latency) || (was_latency && allreduce)) {
          throw InputError(
              source, number, "header",
              fmt::format("\"{}\" after {} output: one OSU benchmark per file (osu_allreduce or osu_latency)",
                          trim(line.substr(1)), was_allreduce ? "osu_allreduce" : "osu_latency"));
        }
      } else if (l.find("datatype") != std::string::npos) {
        const bool four_bytes = l.find("float") != std::string::npos || l.find("mpi_int") != std::string::npos;
        const bool is_double = l.find("double") != std::string::npos;
        if (!four_bytes || is_double) {
          throw InputError(
              source, number, "Datatype",
              fmt::format("expected a 4-byte datatype (MPI_FLOAT, MPI_INT), got \"{}\"", trim(line.substr(1))));
        }
      } else if (l.find("size") != std::string::npos && l.find("latency") != std::string::npos) {
        header_seen = true;
        // "# Size  Avg Latency(us) ..." or "# Size  Latency (us)": the time is the first
        // column after the size.
        time_column = 1;
      }
      continue;
    }
    if (!allreduce && !latency) {
      throw InputError(source, number, "header",
                       "expected the OSU header line (\"# OSU MPI ... Test\") before the data");
    }
    if (!header_seen) {
      throw InputError(source, number, "header",
                       "expected the column header (\"# Size ... Latency(us)\") before the data");
    }
    const std::vector<std::string_view> cells = split_whitespace(line);
    if (static_cast<int>(cells.size()) <= time_column) {
      throw InputError(source, number, "Latency(us)",
                       fmt::format("expected SIZE and LATENCY columns, got \"{}\"", line));
    }
    const std::optional<std::uint64_t> size = parse_uint(cells[0]);
    if (!size)
      throw InputError(source, number, "Size", fmt::format("expected a whole number of bytes, got \"{}\"", cells[0]));
    const double t = read_time_cell(cells[static_cast<std::size_t>(time_column)], 1e-6, source, number, "Latency(us)");
    if (latency) {
      P2pPoint p;
      p.pattern = "ping-pong";
      p.transport = "mpi";
      p.pairs = 1;
      p.bytes = *size;
      p.median_s = t;
      m.p2p.push_back(p);
    } else {
      if (*size < 4) continue;  // a partial element: no all_reduce of this size exists in fp32
      m.series.push_back(library_point("mpi-library", "MPI_Allreduce", "mpi", 0, *size, t, number,
                                       fmt::format("line {} Size {}", number, *size)));
    }
  }
  require_points(m, source, "OSU");
  if (latency) {
    m.processes = resolve_ranks(ranks, 2, source, "osu_latency runs 2 processes");
  } else {
    m.processes = resolve_ranks(ranks, std::nullopt, source, "OSU output does not record the process count");
    for (SeriesPoint& p : m.series) p.group_size = m.processes;
  }
  return m;
}

// nccl-tests (all_reduce_perf): header lines "# nThread 1 nGpus 1 ...", "#  Rank  0 Group 0
// Pid ... on HOST device 0 [...] NAME" (one per rank), then rows
// "size count type redop root time algbw busbw #wrong time algbw busbw #wrong" (out-of-place
// then in-place). The out-of-place time is taken.
MeasurementFile parse_nccl_tests(std::string_view text, const std::string& source, std::optional<int> ranks) {
  MeasurementFile m;
  m.file = source;
  int rank_lines = 0;
  std::vector<std::string> hosts;
  bool all_reduce = false;
  for (const auto& [number, raw] : split_lines(text)) {
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line.front() == '#') {
      const std::vector<std::string_view> words = split_whitespace(line.substr(1));
      if (words.size() >= 2 && words[0] == "Rank") {
        ++rank_lines;
        const auto on = std::find(words.begin(), words.end(), "on");
        if (on != words.end() && on + 1 != words.end() &&
            std::find(hosts.begin(), hosts.end(), std::string(*(on + 1))) == hosts.end()) {
          hosts.emplace_back(*(on + 1));
        }
      }
      if (line.find("all_reduce_perf") != std::string_view::npos) all_reduce = true;
      for (const char* other : {"all_gather_perf", "reduce_scatter_perf", "broadcast_perf", "reduce_perf",
                                "alltoall_perf", "sendrecv_perf", "gather_perf", "scatter_perf", "hypercube_perf"}) {
        const std::size_t at = line.find(other);
        if (at != std::string_view::npos && (at == 0 || line[at - 1] != '_')) {
          throw InputError(source, number, "header",
                           fmt::format("this is {} output; calibration reads all_reduce_perf", other));
        }
      }
      continue;
    }
    const std::vector<std::string_view> cells = split_whitespace(line);
    if (cells.size() < 6) {
      throw InputError(source, number, "time",
                       fmt::format("expected the columns size count type redop root time ..., got \"{}\"", line));
    }
    const std::uint64_t bytes = read_bytes_cell(cells[0], source, number, "size");
    const double t = read_time_cell(cells[5], 1e-6, source, number, "time");
    m.series.push_back(library_point("nccl-library", "ncclAllReduce", "nccl", 0, bytes, t, number,
                                     fmt::format("line {} size {}", number, bytes)));
    // "#wrong" (out-of-place, then in-place): elements whose result was wrong; "N/A" when
    // the run did not check (-c 0).
    std::vector<std::string> wrong;
    for (std::size_t col : {std::size_t{8}, std::size_t{12}}) {
      if (col >= cells.size()) continue;
      const std::optional<std::int64_t> n = parse_int(cells[col]);
      if (n && *n != 0) wrong.push_back(fmt::format("{} {}", cells[col], col == 8 ? "out of place" : "in place"));
    }
    if (!wrong.empty()) {
      SeriesPoint& p = m.series.back();
      p.check_failure = fmt::format("nccl-tests counted wrong results (#wrong: {})", fmt::join(wrong, ", "));
      p.check_field = "#wrong";
      p.check_line = number;
    }
  }
  if (!all_reduce) {
    throw InputError(source, 0, "header",
                     "cannot tell which nccl-tests program wrote this: expected the line \"# Collective test starting: "
                     "all_reduce_perf\" (or the command line naming all_reduce_perf) in the header");
  }
  require_points(m, source, "nccl-tests");
  m.processes = resolve_ranks(ranks, rank_lines > 0 ? std::optional<int>(rank_lines) : std::nullopt, source,
                              "nccl-tests prints one \"#  Rank\" line per rank");
  m.nodes = static_cast<int>(hosts.size());
  for (SeriesPoint& p : m.series) p.group_size = m.processes;
  return m;
}

// CSV: a header naming the columns, then one row per point. Columns (any order, case
// insensitive): bytes (required), time_us or time_s (one required), ranks (or --ranks),
// algorithm and transport (optional: a ccsim schedule name makes the row a ccsim schedule,
// any other name a library collective; defaults "library" and "csv").
/// Long: one pass over the CSV (header, then each row's columns), each cell's errors where it is read.
MeasurementFile parse_csv(std::string_view text, const std::string& source, std::optional<int> ranks) {
  MeasurementFile m;
  m.file = source;
  std::vector<std::string> columns;
  int bytes_col = -1, time_col = -1, ranks_col = -1, algo_col = -1, transport_col = -1;
  double scale = 1e-6;
  std::optional<int> file_ranks;
  for (const auto& [number, raw] : split_lines(text)) {
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const std::vector<std::string_view> cells = split_commas(line);
    if (columns.empty()) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        const std::string c = ascii_lower(cells[i]);
        const int col = static_cast<int>(i);
        if (c == "bytes")
          bytes_col = col;
        else if (c == "time_us")
          time_col = col, scale = 1e-6;
        else if (c == "time_s")
          time_col = col, scale = 1.0;
        else if (c == "ranks")
          ranks_col = col;
        else if (c == "algorithm")
          algo_col = col;
        else if (c == "transport")
          transport_col = col;
        else if (c != "op") {
          throw InputError(source, number, std::string(cells[i]),
                           "unknown column; valid: bytes, time_us, time_s, ranks, algorithm, transport, op");
        }
        columns.push_back(c);
      }
      if (bytes_col < 0 || time_col < 0) {
        throw InputError(
            source, number, "header",
            fmt::format("expected a header with the columns bytes and time_us (or time_s), got \"{}\"", line));
      }
      continue;
    }
    if (cells.size() != columns.size()) {
      throw InputError(source, number, "",
                       fmt::format("expected {} cells as in the header, got {}", columns.size(), cells.size()));
    }
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (columns[i] == "op" && cells[i] != "all_reduce") {
        throw InputError(source, number, "op", fmt::format("expected all_reduce, got \"{}\"", cells[i]));
      }
    }
    const std::uint64_t bytes = read_bytes_cell(cells[static_cast<std::size_t>(bytes_col)], source, number, "bytes");
    const double t = read_time_cell(cells[static_cast<std::size_t>(time_col)], scale, source, number,
                                    columns[static_cast<std::size_t>(time_col)]);
    int row_ranks = 0;
    if (ranks_col >= 0) {
      const std::string_view cell = cells[static_cast<std::size_t>(ranks_col)];
      const std::optional<std::int64_t> r = parse_int(cell);
      if (!r || *r < 1 || *r > kMaxRanks) {
        throw InputError(source, number, "ranks", fmt::format("expected 1..{}, got \"{}\"", kMaxRanks, cell));
      }
      row_ranks = static_cast<int>(*r);
      file_ranks = std::max(file_ranks.value_or(0), row_ranks);
    }
    const std::string algorithm = algo_col >= 0 ? std::string(cells[static_cast<std::size_t>(algo_col)]) : "library";
    const std::string transport =
        transport_col >= 0 ? std::string(cells[static_cast<std::size_t>(transport_col)]) : "csv";
    if (algorithm.empty() || transport.empty() || algorithm.find('/') != std::string::npos ||
        transport.find('/') != std::string::npos) {
      throw InputError(source, number,
                       algorithm.empty() || algorithm.find('/') != std::string::npos ? "algorithm" : "transport",
                       "expected a non-empty name without '/'");
    }
    const bool schedule = collective::find_algorithm(collective::Collective::kAllReduce, algorithm) != nullptr;
    m.series.push_back(library_point(schedule ? "ccsim-schedule" : "library", algorithm, transport, row_ranks, bytes, t,
                                     number, fmt::format("line {} bytes {}", number, bytes)));
  }
  if (columns.empty()) throw InputError(source, 0, "header", "empty CSV: expected a header line and rows");
  require_points(m, source, "CSV");
  m.processes = resolve_ranks(ranks, file_ranks, source, ranks_col >= 0 ? "its ranks column" : "no ranks column");
  for (SeriesPoint& p : m.series) {
    if (p.group_size == 0) p.group_size = m.processes;
  }
  return m;
}

}  // namespace

BenchmarkFormat detect_benchmark_format(std::string_view text) {
  for (const auto& [number, raw] : split_lines(text)) {
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line.front() == '{') return BenchmarkFormat::kCcsim;
    const std::string l = ascii_lower(line);
    if (l.rfind("# osu", 0) == 0) return BenchmarkFormat::kOsu;
    if (l.find("nthread") != std::string::npos || l.find("collective test starting") != std::string::npos ||
        l.find("_perf") != std::string::npos) {
      return BenchmarkFormat::kNcclTests;
    }
    if (line.front() != '#') return BenchmarkFormat::kCsv;
  }
  return BenchmarkFormat::kCsv;
}

const char* format_name(BenchmarkFormat format) {
  switch (format) {
    case BenchmarkFormat::kCcsim:
      return "ccsim-measurements";
    case BenchmarkFormat::kOsu:
      return "OSU micro-benchmarks";
    case BenchmarkFormat::kNcclTests:
      return "nccl-tests";
    case BenchmarkFormat::kCsv:
      return "CSV";
  }
  return "?";
}

MeasurementFile parse_benchmark_output(std::string_view text, const std::string& source, std::optional<int> ranks) {
  switch (detect_benchmark_format(text)) {
    case BenchmarkFormat::kCcsim: {
      MeasurementFile m = parse_measurements(text, source);
      if (ranks && *ranks != m.processes) {
        throw InputError("command line", 0, "--ranks",
                         fmt::format("{} records machine.processes {}; --ranks {} disagrees (leave --ranks out for "
                                     "ccsim measurement files)",
                                     source, m.processes, *ranks));
      }
      return m;
    }
    case BenchmarkFormat::kOsu:
      return parse_osu(text, source, ranks);
    case BenchmarkFormat::kNcclTests:
      return parse_nccl_tests(text, source, ranks);
    case BenchmarkFormat::kCsv:
      return parse_csv(text, source, ranks);
  }
  return {};
}

MeasurementFile read_any_measurements(const std::string& path, std::optional<int> ranks) {
  MeasurementFile m = parse_benchmark_output(json::read_file(path), path, ranks);
  for (SeriesPoint& p : m.series) p.file = path;  // for errors found later (schedule_for)
  return m;
}

}  // namespace ccsim::calibrate
