#include "measure/measurement.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "collective/algorithm.hpp"
#include "collective/error_model.hpp"
#include "collective/ring_all_gather.hpp"
#include "compress/codec.hpp"
#include "compress/codec_benchmark.hpp"
#include "core/input_error.hpp"
#include "core/output_file.hpp"
#include "core/parse.hpp"
#include "measure/communicator.hpp"
#include "measure/real_executor.hpp"
#include "measure/series_runner.hpp"
#include "measure/statistics.hpp"
#ifdef CCSIM_HAVE_UCX
#include "measure/ucx_transport.hpp"
#endif

extern char** environ;

namespace ccsim::measure {
namespace {

using collective::Collective;
using detail::Group;
using detail::InputSource;
using detail::SeriesRunner;
using nlohmann::ordered_json;

std::string env_summary() {
  std::vector<std::string> vars;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view v(*e);
    if (v.starts_with("OMPI_MCA_") || v.starts_with("UCX_")) vars.emplace_back(v);
  }
  std::sort(vars.begin(), vars.end());
  return fmt::format("{}", fmt::join(vars, " "));
}

/// The settings of the link scripts/slowlink.sh emulates, from the file it keeps while the link
/// is up (`KEY=VALUE` lines: rate, ports, duplex, links, burst, mtu, rps, congestion and the
/// host's own orig_mtu, orig_gso, orig_rps, orig_cc); an empty
/// object when none is up. A series measured through the link then says how it was shaped:
/// packets of lo's 64 KiB or of an Ethernet frame time small messages very differently.
ordered_json emulated_link() {
  ordered_json link = ordered_json::object();
  std::ifstream in(kSlowlinkSettings);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    link[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return link;
}

}  // namespace

std::string mpi_path(std::string_view btl, std::string_view tcp_interface, std::size_t nodes, int processes) {
  const std::string list(btl);
  auto has = [&](std::string_view name) {
    return ("," + list + ",").find("," + std::string(name) + ",") != std::string::npos;
  };
  if (list.empty() && nodes == 1) {
    return fmt::format(
        "shared memory (vader), as Open MPI does between processes of one node: {} ran on one node; "
        "ccsim measure --mpi-over tcp:lo measures TCP instead",
        processes == 1 ? std::string("the process") : fmt::format("all {} processes", processes));
  }
  if (list.empty()) {
    return fmt::format(
        "as Open MPI chooses: shared memory (vader) between processes of one node, a network BTL between the {} "
        "nodes; ccsim measure --mpi-over shm|tcp[:IFACE] selects one",
        nodes);
  }
  if (has("tcp") && !has("vader") && !has("sm")) {
    return fmt::format(
        "TCP (OMPI_MCA_btl={}){}", list,
        tcp_interface.empty() ? std::string(", any interface") : fmt::format(" through interface {}", tcp_interface));
  }
  if ((has("vader") || has("sm")) && !has("tcp")) return fmt::format("shared memory (OMPI_MCA_btl={})", list);
  return fmt::format("OMPI_MCA_btl={}", list);
}

std::string absolute_codec_spec(const std::string& spec, double value_range) {
  const auto pos = spec.find("rel=");
  if (pos == std::string::npos) return spec;
  auto end = spec.find(',', pos);
  const std::string text = spec.substr(pos + 4, end == std::string::npos ? std::string::npos : end - pos - 4);
  const double rel = parse_double_or_throw(text, "--codec", "rel");
  if (!(rel > 0)) throw InputError("--codec", 0, "rel", fmt::format("expected a positive bound, got \"{}\"", text));
  if (!(value_range > 0) || !std::isfinite(value_range)) {
    throw InputError("--codec", 0, "rel",
                     fmt::format("the inputs' value range is {} (every value the same), so a bound relative to it "
                                 "gives no absolute bound; give one with abs=X",
                                 value_range));
  }
  return spec.substr(0, pos) + fmt::format("abs={:.9g}", rel * value_range) +
         (end == std::string::npos ? "" : spec.substr(end));
}

void check_data_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status)) {
    throw InputError(path, 0, "--data", "is a directory; expected a file of raw fp32 data");
  }
  if (ec) throw InputError(path, 0, "--data", fmt::format("cannot open the file: {}", ec.message()));
  if (!std::filesystem::is_regular_file(status)) {
    throw InputError(path, 0, "--data", "is not a regular file; expected a file of raw fp32 data");
  }
  if (!std::ifstream(path, std::ios::binary)) throw InputError(path, 0, "--data", "cannot open the file");
  const std::uint64_t bytes = std::filesystem::file_size(path, ec);
  if (ec || bytes < sizeof(float) || bytes % sizeof(float) != 0) {
    throw InputError(
        path, 0, "--data",
        fmt::format("expected raw fp32 data (a non-zero multiple of 4 bytes), got {} bytes", ec ? 0 : bytes));
  }
  note_input_file(path);  // -o must not replace it
}

namespace {

/// An environment variable's value, "" when unset.
std::string_view env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string_view() : std::string_view(value);
}

/// Records what carried the job's MPI messages (mpi_path, from the BTL selection in the
/// environment and the nodes the processes ran on) as machine.mpi_path, and prints it as the
/// table's first line to `table` (rank 0's stdout or stderr; nullptr on the other ranks).
void record_mpi_path(nlohmann::ordered_json& machine, int processes, std::FILE* table) {
  const std::string path = mpi_path(env_or_empty("OMPI_MCA_btl"), env_or_empty("OMPI_MCA_btl_tcp_if_include"),
                                    machine["nodes"].get<std::size_t>(), processes);
  if (table != nullptr) fmt::print(table, "MPI messages: {}\n", path);
  machine["mpi_path"] = path;
}

/// World rank w of a tp x pp x dp layout: (colour, key) of its group of `kind`.
std::pair<int, int> group_of(const std::string& kind, const Layout& l, int w) {
  const int t = w % l.tp;
  const int s = (w / l.tp) % l.pp;
  const int d = w / (l.tp * l.pp);
  if (kind == "world") return {0, w};
  if (kind == "tp") return {w / l.tp, t};
  if (kind == "pp") return {t + l.tp * d, s};
  if (kind == "dp") return {t + l.tp * s, d};
  throw InputError("--groups", 0, "", fmt::format("unknown group kind \"{}\"; choices: world, tp, pp, dp", kind));
}

int group_count(const std::string& kind, const Layout& l) {
  if (kind == "tp") return l.pp * l.dp;
  if (kind == "pp") return l.tp * l.dp;
  if (kind == "dp") return l.tp * l.pp;
  return 1;
}

Layout resolve_layout(Layout l, int world) {
  const int known = std::max(l.tp, 1) * std::max(l.pp, 1) * std::max(l.dp, 1);
  if (l.pp < 1) throw InputError("--layout", 0, "pp", fmt::format("expected a positive size, got {}", l.pp));
  if (l.tp == 0 && l.dp == 0) l.dp = 1;
  if (l.tp == 0) l.tp = world / (l.pp * l.dp);
  if (l.dp == 0) l.dp = world / (l.tp * l.pp);
  if (l.tp * l.pp * l.dp != world || l.tp < 1 || l.dp < 1) {
    throw InputError("--layout", 0, "",
                     fmt::format("tp x pp x dp must equal the {} processes of the job (given factors multiply to {})",
                                 world, known));
  }
  return l;
}

/// Runs `check` on every rank and agrees on its outcome (a collective call): when it threw an
/// InputError on any rank, every rank throws JobError with the message of the lowest such rank.
/// `check` must make no collective call (a rank that threw would leave the others in it).
template <class Check>
void agree(const Communicator& world, Check&& check) {
  std::string error;
  try {
    check();
  } catch (const InputError& e) {
    error = e.what();
  }
  for (const std::string& message : world.all_gather(error)) {
    if (!message.empty()) throw JobError(message);
  }
}

/// Ping-pong between ranks 0 and 1 of the world, and concurrent bidirectional exchanges of
/// the pairs (0, 1), (2, 3), ... over one transport.
ordered_json measure_p2p(const MeasureOptions& options, const Communicator& world, Transport& transport) {
  ordered_json out = ordered_json::array();
  const int rank = world.rank();
  const int pairs = world.size() / 2;
  for (const char* pattern : {"ping-pong", "pairs"}) {
    for (std::uint64_t bytes : options.sizes) {
      std::vector<std::byte> send(bytes, std::byte{1});
      std::vector<std::byte> recv(bytes);
      std::vector<double> samples;
      int reps = options.reps;
      const bool ping = std::string_view(pattern) == "ping-pong";
      const int peer = rank ^ 1;
      const bool active = ping ? rank < 2 : peer < world.size();
      for (int rep = 0; rep < options.warmup + reps; ++rep) {
        world.barrier();
        const double t0 = Communicator::now_s();
        if (active && ping) {
          if (rank == 0) {
            transport.exchange(1, send, -1, {});
            transport.exchange(-1, {}, 1, recv);
          } else {
            transport.exchange(-1, {}, 0, recv);
            transport.exchange(0, send, -1, {});
          }
        } else if (active) {
          transport.exchange(peer, send, peer, recv);
        }
        double elapsed = Communicator::now_s() - t0;
        if (ping) elapsed /= 2;  // one way
        elapsed = world.max(active ? elapsed : 0.0);
        if (rep == 0 && elapsed > 0)
          reps = detail::affordable_reps(options.reps, options.max_seconds_per_size, elapsed);
        if (rep >= options.warmup) samples.push_back(elapsed);
      }
      ordered_json s;
      s["pattern"] = pattern;
      s["transport"] = std::string(transport.name());
      s["pairs"] = ping ? 1 : pairs;
      s["bytes"] = bytes;
      s["reps"] = samples.size();
      s["time_s"] = summary_json(summarize(samples));
      s["samples_s"] = samples;
      out.push_back(s);
      if (rank == 0) {
        const double t = summarize(samples).median;
        fmt::print(options.table_on_stdout ? stdout : stderr,
                   "  p2p {:<9} {:<4} {:>12} B  {:>10.3f} us  {:>8.3f} GB/s per direction\n", pattern, transport.name(),
                   bytes, t * 1e6, t > 0 ? static_cast<double>(bytes) / t / 1e9 : 0.0);
      }
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> available_transports() {
#ifdef CCSIM_HAVE_UCX
  return {"mpi", "ucx"};
#else
  return {"mpi"};
#endif
}

std::string transports_note() {
#ifdef CCSIM_HAVE_UCX
  std::string out = "transports in this build: mpi, ucx (UCX tag messages, bootstrapped over MPI)";
#else
  std::string out = "transports in this build: mpi (UCX was not found when ccsim was configured)";
#endif
#ifdef CCSIM_HAVE_UCC
  out += "; UCC found";
#else
  out += "; UCC: not built (not found at configure time; Debian does not package it)";
#endif
  return out;
}

namespace {

/// What needs the job (its size) or each rank's own reading of the data: every rank checks,
/// and the ranks agree before any measurement, so that a refusal ends every rank alike.
struct CheckedJob {
  Layout layout;
  std::optional<InputSource> input;
};

CheckedJob check_job(const MeasureOptions& options, Communicator& world) {
  CheckedJob job;
  agree(world, [&] {
    job.layout = resolve_layout(options.layout, world.size());
    const auto available = available_transports();
    for (const auto& t : options.transports) {
      if (std::find(available.begin(), available.end(), t) == available.end()) {
        throw InputError("--transport", 0, "",
                         fmt::format("transport \"{}\" is not in this build; {}", t, transports_note()));
      }
    }
    if (options.np > 0 && options.np != world.size()) {
      throw InputError("command line", 0, "--np",
                       fmt::format("{} processes asked for, but the job has {} (its launcher's -np decides)",
                                   options.np, world.size()));
    }
    if (options.p2p && world.size() < 2) {
      throw InputError(
          "command line", 0, "--p2p",
          fmt::format("point-to-point runs between ranks 0 and 1: it needs at least 2 processes, the job has {}",
                      world.size()));
    }
    job.input.emplace(options.data, options.seed);
  });
  return job;
}

/// The machine the job ran on, as every rank sees it (collective: every rank calls it).
ordered_json describe_machine(const MeasureOptions& options, Communicator& world) {
  const bool root = world.rank() == 0;
  const auto hosts = world.all_gather(Communicator::processor_name());
  ordered_json machine;
  machine["processes"] = world.size();
  machine["nodes"] = std::set<std::string>(hosts.begin(), hosts.end()).size();
  machine["hosts"] = hosts;
  machine["cpu"] = compress::cpu_model_name();
  // The cores the processes of a node could run on together (the union of their affinities),
  // which is what they shared; not one process's affinity: mpirun binds each of 2 processes to
  // a core of its own, and each alone sees 1 core.
  machine["cores_per_node"] = Communicator::node_cores(true);
  // Each process's CPUs (per world rank): bound to a core each, or free to move among them,
  // which changes what processes that share cores take (docs/calibration.md).
  machine["affinity"] = world.all_gather(Communicator::affinity_cpus());
  // The single-core memory bandwidth, the same probe as ccsim_compressor_bench's, by rank 0
  // before any series: what a memory-bound compressor model measured on other hardware scales
  // by (validate --compress).
  machine["memory_Bps"] = world.max(root ? compress::measure_memory_Bps() : 0.0);
  machine["memory_source"] = fmt::format("{}, rank 0", compress::kMemoryProbe);
  machine["mpi_library"] = Communicator::library_version();
  nlohmann::ordered_json limits = nlohmann::ordered_json::object();
  for (const auto& [name, bytes] : Communicator::protocol_limits()) limits[name] = bytes;
  machine["protocol_limits"] = std::move(limits);
  machine["transports"] = transports_note();
  machine["environment"] = env_summary();
  record_mpi_path(machine, world.size(), root ? (options.table_on_stdout ? stdout : stderr) : nullptr);
  if (ordered_json link = emulated_link(); !link.empty()) machine["emulated_link"] = std::move(link);
#ifdef CCSIM_HAVE_UCX
  machine["ucx"] = UcxWorld::describe();
#endif
  return machine;
}

/// The process groups of options.groups, each with its construction time (MPI_Comm_split,
/// repeated) in `described`, and a transport per options.transports (`ucx`: null unless UCX
/// is measured).
std::vector<Group> make_groups(const MeasureOptions& options, const Layout& layout, Communicator& world,
                               [[maybe_unused]] UcxWorld* ucx, ordered_json& described) {
  described = ordered_json::array();
  std::vector<Group> groups;
  std::uint32_t context = 1;
  for (const std::string& kind : options.groups) {
    const auto [color, key] = group_of(kind, layout, world.rank());
    std::vector<double> split_samples;
    for (int rep = 0; rep < std::max(options.reps, 3); ++rep) {
      world.barrier();
      const double t0 = Communicator::now_s();
      Communicator c = world.split(color, key);
      split_samples.push_back(world.max(Communicator::now_s() - t0));
    }
    Group group{kind, world.split(color, key), group_count(kind, layout), {}, {}};
    const auto group_hosts = group.comm.all_gather(Communicator::processor_name());
    for (const auto& host : group_hosts) {
      group.node_of_rank.push_back(
          static_cast<int>(std::find(group_hosts.begin(), group_hosts.end(), host) - group_hosts.begin()));
    }
    for (const auto& t : options.transports) {
      if (t == "mpi") group.transports.emplace_back("mpi", group.comm.transport());
#ifdef CCSIM_HAVE_UCX
      if (t == "ucx") group.transports.emplace_back("ucx", ucx->group(group.comm.world_ranks(), context));
#endif
    }
    ++context;
    ordered_json g;
    g["kind"] = kind;
    g["size"] = group.comm.size();
    g["count"] = group.count;
    g["construction"] = "MPI_Comm_split";
    g["construction_s"] = summary_json(summarize(split_samples));
    described.push_back(g);
    if (world.rank() == 0) {
      fmt::print(options.table_on_stdout ? stdout : stderr,
                 "group {}: {} groups of {} ranks, MPI_Comm_split {:.1f} us (median)\n", kind, group.count,
                 group.comm.size(), summarize(split_samples).median * 1e6);
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

/// Every series' schedule and codec, built before any series runs: a combination that cannot
/// run (homomorphic-ring with a codec whose blocks do not add) or a relative bound that the
/// data make void (a value range of 0) is refused now, not after the series measured before it.
/// The value ranges are the ones the series use (every rank's inputs, agreed).
void check_schedules(const MeasureOptions& options, const InputSource& source, Communicator& world,
                     const std::vector<Group>& groups) {
  std::vector<double> ranges;
  const bool any_codec = std::any_of(options.ops.begin(), options.ops.end(), [&](Collective op) {
    return std::any_of(options.algorithms.begin(), options.algorithms.end(),
                       [&](const std::string& a) { return detail::is_compressed(op, a); });
  });
  for (std::uint64_t bytes : options.sizes) {
    if (!any_codec) break;
    std::vector<float> values(bytes / sizeof(float));
    source.fill(values, world.rank(), world.size());
    ranges.push_back(detail::value_range(values, world));
  }
  agree(world, [&] {
    for (const Group& group : groups) {
      for (Collective op : options.ops) {
        for (std::size_t i = 0; i < options.sizes.size(); ++i) {
          for (const std::string& algorithm : options.algorithms) {
            if (algorithm == "mpi" || collective::find_algorithm(op, algorithm) == nullptr) continue;
            collective::Request request;
            request.op = op;
            request.algorithm = algorithm;
            request.size = group.comm.size();
            request.count = options.sizes[i] / sizeof(float);
            request.element_bytes = 4;
            request.node_of_rank = group.node_of_rank;
            if (detail::is_compressed(op, algorithm)) {
              const auto codec = compress::make_codec(absolute_codec_spec(options.codec, ranges.at(i)), "--codec");
              request.compression = detail::codec_compression(*codec);
            }
            collective::make_schedule(request);
          }
        }
      }
    }
  });
}

/// Rank 0's table line of a finished series.
void print_series(const MeasureOptions& options, const Group& group, std::uint64_t bytes, const ordered_json& done,
                  bool passed) {
  const auto& t = done["time_s"];
  fmt::print(options.table_on_stdout ? stdout : stderr,
             "  {:<14} {:<3} {:<20} {:<4} {:>11} B  {:>10.3f} ms  [{:.3f}, {:.3f}]  ratio {:>6}  {} {}\n",
             done["op"].get<std::string>(), group.kind, done["algorithm"].get<std::string>(),
             done["transport"].get<std::string>(), bytes, t["median"].get<double>() * 1e3, t["p10"].get<double>() * 1e3,
             t["p90"].get<double>() * 1e3,
             done.contains("ratio") ? fmt::format("{:.2f}", done["ratio"].get<double>()) : "-",
             done["check"]["kind"].get<std::string>(), passed ? "ok" : "FAILED");
}

/// Adds a later round's samples and checks to a series of the first round.
void pool_round(ordered_json& pooled, const ordered_json& s, detail::SeriesCheck& check,
                const detail::SeriesCheck& round_check) {
  std::vector<double> samples = pooled["samples_s"].get<std::vector<double>>();
  for (const auto& v : s["samples_s"]) samples.push_back(v.get<double>());
  pooled["reps"] = samples.size();
  pooled["time_s"] = summary_json(summarize(samples));
  pooled["samples_s"] = samples;
  check.merge(round_check);  // every round's repetitions
  pooled["check"] = check.json();
}

/// Every series in sweep order, pooled over the rounds (MeasureOptions::rounds); `checks`: per
/// series, over its rounds.
ordered_json run_series(const MeasureOptions& options, const InputSource& source, Communicator& world,
                        std::vector<Group>& groups, std::vector<detail::SeriesCheck>& checks) {
  const bool root = world.rank() == 0;
  ordered_json series = ordered_json::array();
  const int rounds = std::max(1, options.rounds);
  for (int round = 0; round < rounds; ++round) {
    const int reps = options.reps / rounds + (round < options.reps % rounds ? 1 : 0);
    const bool last = round + 1 == rounds;
    std::size_t index = 0;
    for (Group& group : groups) {
      for (Collective op : options.ops) {
        for (std::uint64_t bytes : options.sizes) {
          SeriesRunner runner(options, source, world, group, op, bytes);
          for (const std::string& algorithm : options.algorithms) {
            // Algorithm names are per collective: the others run what they have of the list.
            if (algorithm != "mpi" && collective::find_algorithm(op, algorithm) == nullptr) continue;
            const std::vector<std::string> library{"mpi"};
            for (const std::string& transport : algorithm == "mpi" ? library : options.transports) {
              ordered_json s = runner.run(algorithm, transport, reps, options.max_seconds_per_size / rounds);
              if (round == 0) {
                series.push_back(std::move(s));
                checks.push_back(runner.check());
              } else {
                pool_round(series[index], s, checks[index], runner.check());
              }
              if (rounds > 1) series[index]["rounds"] = rounds;
              if (root && last) print_series(options, group, bytes, series[index], checks[index].passed());
              ++index;
            }
          }
        }
      }
    }
    if (root && !last)
      fmt::print(options.table_on_stdout ? stdout : stderr, "round {} of {} done\n", round + 1, rounds);
  }
  return series;
}

}  // namespace

nlohmann::ordered_json run_measurements(const MeasureOptions& options) {
  Communicator world = Communicator::world();
  const CheckedJob job = check_job(options, world);
  const InputSource& source = *job.input;

  ordered_json doc;
  doc["format"] = "ccsim-measurements";
  doc["version"] = 1;
  doc["command"] = options.command_line;
  doc["machine"] = describe_machine(options, world);
  ordered_json layout_json;
  layout_json["tp"] = job.layout.tp;
  layout_json["pp"] = job.layout.pp;
  layout_json["dp"] = job.layout.dp;
  doc["layout"] = layout_json;
  doc["data"] = source.describe();

#ifdef CCSIM_HAVE_UCX
  std::unique_ptr<UcxWorld> ucx;
  if (std::find(options.transports.begin(), options.transports.end(), "ucx") != options.transports.end()) {
    ucx = std::make_unique<UcxWorld>();
  }
  UcxWorld* ucx_world = ucx.get();
#else
  UcxWorld* ucx_world = nullptr;  // declared, never built: no transport uses it
#endif
  ordered_json groups_json;
  std::vector<Group> groups = make_groups(options, job.layout, world, ucx_world, groups_json);
  doc["groups"] = groups_json;
  check_schedules(options, source, world, groups);

  std::vector<detail::SeriesCheck> checks;
  doc["series"] = run_series(options, source, world, groups, checks);
  const int failed = static_cast<int>(
      std::count_if(checks.begin(), checks.end(), [](const detail::SeriesCheck& c) { return !c.passed(); }));
  if (options.p2p && world.size() >= 2) {
    // Over the world, whatever groups were measured (UCX context 0 is reserved for it).
    ordered_json p2p = ordered_json::array();
    for (const auto& t : options.transports) {
      std::unique_ptr<Transport> transport;
      if (t == "mpi") transport = world.transport();
#ifdef CCSIM_HAVE_UCX
      if (t == "ucx") transport = ucx->group(world.world_ranks(), 0);
#endif
      for (auto& s : measure_p2p(options, world, *transport)) p2p.push_back(std::move(s));
    }
    doc["p2p"] = p2p;
  }
  doc["failed_checks"] = failed;
  return world.rank() == 0 ? doc : ordered_json();
}

}  // namespace ccsim::measure
