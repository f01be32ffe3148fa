#include "cli/measure_cmd.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "measure/launch.hpp"

namespace ccsim::cli {
namespace {

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

}  // namespace

void setup_measure_options(CLI::App& app, MeasureCommand& c) {
  auto& o = c.options;
  app.add_option("--op", c.selection.ops,
                 "collectives to measure: all_reduce, all_gather, reduce_scatter (comma-separated)")
      ->capture_default_str();
  app.add_option("--algo", c.selection.algorithms,
                 "implementations, comma-separated: mpi (the MPI library's own collective) and ccsim schedules: "
                 "ring, recursive-doubling, rabenseifner, binomial-tree, compressed-ring, homomorphic-ring, "
                 "compressed-allgather")
      ->capture_default_str();
  app.add_option("--transport", c.selection.transports,
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
  app.add_option("--sizes", c.selection.sizes, "buffer bytes per rank: FROM:TO[:xFACTOR] or a list (1KiB,4MiB,...)")
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
      ->check(whole_number(1, measure::kMaxProcesses, "a whole number of processes"));
  app.add_option("--layout", c.selection.layout,
                 "cut the world into groups: tp=T,pp=P,dp=D (Megatron order: tp fastest)");
  app.add_option("--groups", c.selection.groups, "which groups to measure on: world, tp, pp, dp (comma-separated)")
      ->capture_default_str();
  app.add_option("--data", o.data, "raw fp32 file to take every rank's input from (default: synthetic gradients)");
  app.add_option("--seed", o.seed, "seed of the synthetic inputs")->capture_default_str();
  app.add_flag("--p2p", o.p2p, "also measure point-to-point: ping-pong and concurrent pairs, over each transport");
  app.add_option("-o,--output", c.output, "measurement JSON (format ccsim-measurements, see src/measure/README.md)")
      ->capture_default_str();
}

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
  measure::apply_selection(c.selection, o);
}

}  // namespace ccsim::cli
