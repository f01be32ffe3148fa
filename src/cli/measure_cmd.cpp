#include "cli/measure_cmd.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "compress/codec.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/spelling.hpp"

namespace ccsim::cli {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, separator);) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

/// A CLI11 check of a whole number from `min` to `max`, in plain words.
CLI::Validator whole_number(std::int64_t min, std::int64_t max, const std::string& what) {
  return CLI::Validator(
      [min, max, what](std::string& text) -> std::string {
        const auto value = parse_int(text);
        if (value && *value >= min && *value <= max) return "";
        return fmt::format("expected {} from {} to {}, got \"{}\"", what, min, max, text);
      },
      fmt::format("{}..{}", min, max));
}

/// A CLI11 check of a positive finite number.
CLI::Validator positive_seconds() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto value = parse_double(text);
        if (value && std::isfinite(*value) && *value > 0) return "";
        return fmt::format("expected a positive finite number of seconds, got \"{}\"", text);
      },
      "SECONDS > 0");
}

/// A list option that selects nothing (--op ",") is an error, not an empty measurement.
std::vector<std::string> split_selection(const std::string& text, const std::string& option,
                                         const std::string& choices) {
  auto out = split(text, ',');
  if (out.empty()) {
    throw InputError("command line", 0, option, fmt::format("expected at least one of {}, got \"{}\"", choices, text));
  }
  return out;
}

/// An unknown name given to `option` (a collective, an algorithm, a group kind, ...): a
/// malformed command line (UnknownNameError: exit 2, as ccsim's own unknown names), worded as
/// ccsim's: 'unknown collective "allreduce"; did you mean all_reduce? choices: ...'.
[[noreturn]] void unknown_name(const std::string& option, std::string_view what, const std::string& name,
                               const std::vector<std::string>& choices, const std::string& after = "") {
  throw UnknownNameError("command line", 0, option,
                         fmt::format("unknown {} \"{}\"; {}choices: {}{}", what, name,
                                     did_you_mean(name, choices, "", " "), fmt::join(choices, ", "), after));
}

}  // namespace

std::vector<std::uint64_t> parse_size_list(const std::string& text, const std::string& field) {
  std::vector<std::uint64_t> out;
  if (text.find(':') != std::string::npos) {
    const auto parts = split(text, ':');
    if (parts.size() < 2 || parts.size() > 3) {
      throw InputError("command line", 0, field, fmt::format("expected FROM:TO[:xFACTOR], got \"{}\"", text));
    }
    const std::uint64_t from = parse_bytes_or_throw(parts[0], "command line", field);
    const std::uint64_t to = parse_bytes_or_throw(parts[1], "command line", field);
    std::uint64_t factor = 2;
    if (parts.size() == 3) {
      auto f = parts[2].starts_with('x') ? parse_uint(std::string_view(parts[2]).substr(1)) : std::nullopt;
      if (!f || *f < 2) {
        throw InputError("command line", 0, field, fmt::format("expected a factor x2, x4, ..., got \"{}\"", parts[2]));
      }
      factor = *f;
    }
    if (from == 0 || to < from) {
      throw InputError("command line", 0, field, fmt::format("expected 0 < FROM <= TO, got \"{}\"", text));
    }
    for (std::uint64_t s = from; s <= to; s *= factor) {
      out.push_back(s);
      if (s > to / factor) break;
    }
    return out;
  }
  for (const auto& item : split(text, ',')) out.push_back(parse_bytes_or_throw(item, "command line", field));
  if (out.empty()) throw InputError("command line", 0, field, "expected at least one size");
  return out;
}

void setup_measure_options(CLI::App& app, MeasureCommand& c) {
  auto& o = c.options;
  app.add_option("--op", c.ops, "collectives to measure: all_reduce, all_gather, reduce_scatter (comma-separated)")
      ->capture_default_str();
  app.add_option("--algo", c.algorithms,
                 "implementations, comma-separated: mpi (the MPI library's own collective) and ccsim schedules: "
                 "ring, recursive-doubling, rabenseifner, binomial-tree, compressed-ring, homomorphic-ring, "
                 "compressed-allgather")
      ->capture_default_str();
  app.add_option("--transport", c.transports,
                 "what carries the schedules' messages: " +
                     fmt::format("{}", fmt::join(measure::available_transports(), ", ")) + " (" +
                     measure::transports_note() + ")")
      ->capture_default_str();
  app.add_option(
         "--codec", o.codec,
         "codec of the compressed schedules: ccsz:abs=X|rel=X, zfp:abs=X|rel=X, int8[:block=N], onebit[:block=N]; "
         "rel is relative to the value range of the inputs")
      ->capture_default_str();
  app.add_flag("--error-feedback", o.error_feedback, "compress with error feedback (for int8 and onebit)");
  app.add_option("--sizes", c.sizes, "buffer bytes per rank: FROM:TO[:xFACTOR] or a list (1KiB,4MiB,...)")
      ->capture_default_str();
  app.add_option("--warmup", o.warmup, "untimed repetitions first")
      ->capture_default_str()
      ->check(whole_number(0, kMaxRepetitions, "a whole number of repetitions"));
  app.add_option("--reps", o.reps, "timed repetitions (at least 3 when a size exceeds --max-seconds)")
      ->capture_default_str()
      ->check(whole_number(1, kMaxRepetitions, "a whole number of repetitions"));
  app.add_option("--max-seconds", o.max_seconds_per_size, "time allowed for the repetitions of one series")
      ->capture_default_str()
      ->check(positive_seconds());
  app.add_option("--rounds", o.rounds,
                 "sweep every series this many times, each round with its share of --reps (and its own warm-up), and "
                 "pool the samples: slow spells of a shared machine fall on every size alike")
      ->capture_default_str()
      ->check(whole_number(1, 1000, "a whole number of rounds"));
  app.add_option(
         "--np", o.np,
         "processes: `ccsim measure` starts this many with mpirun (default 2); under an MPI launcher, the job's "
         "size (checked)")
      ->check(whole_number(1, kMaxProcesses, "a whole number of processes"));
  app.add_option("--layout", c.layout, "cut the world into groups: tp=T,pp=P,dp=D (Megatron order: tp fastest)");
  app.add_option("--groups", c.groups, "which groups to measure on: world, tp, pp, dp (comma-separated)")
      ->capture_default_str();
  app.add_option("--data", o.data, "raw fp32 file to take every rank's input from (default: synthetic gradients)");
  app.add_option("--seed", o.seed, "seed of the synthetic inputs")->capture_default_str();
  app.add_flag("--p2p", o.p2p, "also measure point-to-point: ping-pong and concurrent pairs, over each transport");
  app.add_option("-o,--output", c.output, "measurement JSON (format ccsim-measurements, see src/measure/README.md)")
      ->capture_default_str();
}

/// Long: one check per option of measure, in the order --help prints them.
void finish_measure_options(MeasureCommand& c) {
  auto& o = c.options;
  // The inputs first: the output may be none of them.
  if (!o.data.empty()) measure::check_data_file(o.data);
  check_output_path(c.output);
  if (o.rounds > o.reps) {
    throw InputError("command line", 0, "--rounds",
                     fmt::format("{} rounds for {} repetitions: every round needs one (--reps at least --rounds)",
                                 o.rounds, o.reps));
  }
  o.ops.clear();
  for (const auto& name : split_selection(c.ops, "--op", "all_reduce, all_gather, reduce_scatter")) {
    if (name == "all_reduce")
      o.ops.push_back(collective::Collective::kAllReduce);
    else if (name == "all_gather")
      o.ops.push_back(collective::Collective::kAllGather);
    else if (name == "reduce_scatter")
      o.ops.push_back(collective::Collective::kReduceScatter);
    else
      unknown_name("--op", "collective", name, {"all_reduce", "all_gather", "reduce_scatter"});
  }
  const auto known = collective::algorithms(collective::Collective::kAllReduce);
  std::vector<std::string> implementations{"mpi"};  // the library's own, then ccsim's schedules
  for (std::string_view name : known) {
    if (name != "auto") implementations.emplace_back(name);
  }
  o.algorithms = split_selection(c.algorithms, "--algo", fmt::format("{}", fmt::join(implementations, ", ")));
  for (const auto& a : o.algorithms) {
    if (a == "mpi") continue;
    if (std::find(implementations.begin(), implementations.end(), a) == implementations.end()) {
      unknown_name("--algo", "implementation", a, implementations);
    }
    // Each collective runs the algorithms of the list it has; one that none of --op has would
    // measure nothing.
    std::vector<std::string_view> runs_on;
    bool runs = false;
    for (auto op : {collective::Collective::kAllReduce, collective::Collective::kAllGather,
                    collective::Collective::kReduceScatter}) {
      if (collective::find_algorithm(op, a) == nullptr) continue;
      runs_on.push_back(collective::to_string(op));
      runs = runs || std::find(o.ops.begin(), o.ops.end(), op) != o.ops.end();
    }
    if (!runs) {
      throw InputError("command line", 0, "--algo",
                       fmt::format("\"{}\" runs on none of the collectives of --op ({}): it is an algorithm of {}", a,
                                   c.ops, fmt::join(runs_on, ", ")));
    }
  }
  o.transports =
      split_selection(c.transports, "--transport", fmt::format("{}", fmt::join(measure::available_transports(), ", ")));
  const auto available = measure::available_transports();
  for (const auto& t : o.transports) {
    if (std::find(available.begin(), available.end(), t) == available.end()) {
      unknown_name("--transport", "transport", t, available, fmt::format(" ({})", measure::transports_note()));
    }
  }
  // The codec is built per size (a relative bound needs the data's range); check it now.
  compress::make_codec(measure::absolute_codec_spec(o.codec, 1.0), "--codec");
  o.sizes = parse_size_list(c.sizes, "--sizes");
  for (std::uint64_t bytes : o.sizes) {
    if (bytes % sizeof(float) != 0) {
      throw InputError("command line", 0, "--sizes",
                       fmt::format("expected sizes that are a positive multiple of 4 bytes (fp32), got {}", bytes));
    }
    // MPI counts elements in an int: the library's reference all_reduce takes the whole buffer.
    if (bytes / sizeof(float) > static_cast<std::uint64_t>(INT_MAX)) {
      throw InputError("command line", 0, "--sizes",
                       fmt::format("{} bytes per rank is more than MPI's int counts allow: at most {} fp32 elements "
                                   "({} bytes, just under 8 GiB)",
                                   bytes, INT_MAX, static_cast<std::uint64_t>(INT_MAX) * sizeof(float)));
    }
  }
  o.groups = split_selection(c.groups, "--groups", "world, tp, pp, dp");
  for (const auto& g : o.groups) {
    if (g != "world" && g != "tp" && g != "pp" && g != "dp")
      unknown_name("--groups", "group kind", g, {"world", "tp", "pp", "dp"});
  }
  if (!c.layout.empty()) {
    for (const auto& item : split(c.layout, ',')) {
      const auto eq = item.find('=');
      const std::string key = item.substr(0, eq);
      if (key != "tp" && key != "pp" && key != "dp") unknown_name("--layout", "key", key, {"tp", "pp", "dp"});
      const auto value = eq == std::string::npos ? std::nullopt : parse_uint(std::string_view(item).substr(eq + 1));
      if (!value || *value < 1 || *value > 1u << 20) {
        throw InputError("command line", 0, "--layout",
                         fmt::format("expected tp=N, pp=N or dp=N with N >= 1, got \"{}\"", item));
      }
      int& slot = key == "tp" ? o.layout.tp : key == "pp" ? o.layout.pp : o.layout.dp;
      slot = static_cast<int>(*value);
    }
  }
}

}  // namespace ccsim::cli
