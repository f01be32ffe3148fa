#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/render.hpp"
#include "collective/registry.hpp"
#include "compress/compress_spec.hpp"
#include "study/data_folders.hpp"
#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/parse.hpp"
#include "core/progress.hpp"

namespace ccsim::cli {

const study::DataFolders& data_folders() {
  static const study::DataFolders folders = study::data_folders(CCSIM_SOURCE_DIR);
  return folders;
}

study::DataLookup data_lookup() { return study::folder_lookup(data_folders()); }

topology::Platform read_named_platform(const std::string& name, const topology::PlatformOverrides& overrides) {
  return study::read_platform_in(data_folders(), name, overrides);
}

void add_simulation_flags(CLI::App* sub, SimulationFlags& flags, bool compress) {
  sub->add_option("-p,--platform", flags.platform,
                  "Platform preset name (ccsim platform list) or platform file; default: the platform the trace names");
  const std::vector<std::string_view> compressed = collective::compressed_all_reduce_algorithms();
  sub->add_option("--algo", flags.algorithm,
                  fmt::format("all_reduce algorithm; 'auto' chooses per collective the lowest predicted cost on the "
                              "platform (closed forms; the report's notes list the candidates) ({} and {} need "
                              "--compress)",
                              fmt::join(compressed.begin(), compressed.end() - 1, ", "), compressed.back()))
      ->check(one_of(algorithm_choices(collective::algorithms(collective::Collective::kAllReduce), false)))
      ->capture_default_str();
  if (compress) {
    sub->add_option("--compress", flags.compress,
                    "Compress all_reduce: NAME[:key=value,...] with a model of models/compressors/ (or a file), e.g. "
                    "cuszp:eb=1e-3, szx:eb=1e-4,where=host, int8, onebit, topk:density=0.01; keys eb, bits, density, "
                    "where (accelerator|host), range (value range, for relative bounds). Each distinct all_reduce "
                    "(size, group) is compressed only where the closed forms on its group's links predict it faster "
                    "compressed than plain; a note gives both times and the decision");
    sub->add_option("--compress-min-bytes", flags.compress_min_bytes,
                    "all_reduces smaller than this stay plain (e.g. 1MiB)")
        ->capture_default_str();
    sub->add_flag("--compress-all", flags.compress_all,
                  "With --compress: compress every all_reduce of at least --compress-min-bytes, also where plain is "
                  "predicted faster (the note still gives both times)");
  }
  sub->add_option("--placement", flags.placement,
                  "How ranks map to accelerators: 'auto' (the trace's own placement, else tp,pp,dp), an order of "
                  "tp, pp and dp innermost first (tp,pp,dp keeps tensor-parallel groups inside a node, or on "
                  "neighbouring nodes under one switch where a node cannot hold a group, pipeline stages across "
                  "nodes, data parallel outermost), 'rank-order', or 'map:A,B,...' (rank r on "
                  "accelerator A_r)")
      ->capture_default_str();
  sub->add_flag("--oversubscribe", flags.oversubscribe,
                "Allow more ranks than accelerators: they share accelerators (compute is time-shared, messages between "
                "ranks on one accelerator go through its memory)");
  sub->add_option(
      "--network-model", flags.network_model,
      "Calibrated network model: NAME of models/network/ or a file (size-dependent latency, bandwidth and "
      "per-message overheads per tier); default: the one the platform names, else SimGrid's plain flow model; "
      "'nominal': the plain flow model on the links' own figures, whatever the platform names");
  sub->add_flag("--simgrid-log", flags.simgrid_log, "Show SimGrid's own log on stderr");
  // By default the replay takes the exact shortcuts (engine::ReplayOptions::fast); --full
  // replays message by message to check them, --fast adds the one approximation.
  CLI::Option* full = sub->add_flag(
      "--full", flags.full,
      "Replay message by message and operator by operator, with none of the default shortcuts (to check "
      "them; much slower on large jobs). By default each rank's consecutive compute operators run as one "
      "busy period where the rank is alone on its accelerator, each collective whose messages cannot slow "
      "one another down (links of its own) runs as its critical path, and data-parallel replicas (and "
      "tensor-parallel peers) that copy another in simulated time run once: times as the full replay's up to "
      "floating-point "
      "rounding (the last digits of a printed time may differ)");
  sub->add_flag("--fast", flags.fast,
                "Also the one approximate shortcut: a ring of more than 16 steps whose messages may share links, "
                "reached by its members together, in 16 coarse steps (not exact where the links' sharing changes "
                "within one; the report notes it)")
      ->excludes(full);
  sub->add_flag(
         "--every-replica", flags.every_replica,
         "Simulate every data-parallel replica and tensor-parallel peer, none as a copy of another (to check the "
         "copies)")
      ->excludes(full);
  sub->add_option(
         "--compute", flags.compute,
         "Compute durations on the platform: 'keep' (as recorded), 'rescale' (by the ratio of the trace's "
         "hardware peak FLOP/s or memory bandwidth to the platform accelerator's), 'model:FILE' (from a compute "
         "model, ccsim calibrate trace; or an accelerator profile, ccsim calibrate compute, for the operators "
         "without a measured duration); 'auto': keep when the trace was measured on the platform's accelerator "
         "or does not name its hardware, else rescale (and say so). Operators without a measured duration run "
         "as the platform's accelerator profile says (compute_profile), or at the peak rates with 'peak' "
         "(max of FLOPs / peak FLOP/s and bytes / memory bandwidth)")
      ->capture_default_str();
  add_set_flag(sub, flags.settings);
}

// --- what-if settings (--set KEY=VALUE) ---

void add_set_flag(CLI::App* sub, std::vector<std::string>& settings) {
  sub->add_option("--set", settings,
                  fmt::format("Change a parameter for this run, KEY=VALUE (repeatable; a value xF multiplies the "
                              "platform's): {} (docs/replay.md, \"What if\")",
                              fmt::join(study::what_if_key_names(), ", ")))
      ->take_all()
      ->allow_extra_args(false);
}

std::vector<std::string> algorithm_choices(const std::vector<std::string_view>& names, bool with_auto) {
  std::vector<std::string> choices;
  if (with_auto) choices.emplace_back("auto");
  choices.insert(choices.end(), names.begin(), names.end());
  return choices;
}

void add_breakdown_flags(CLI::App* sub, BreakdownFlags& flags, const BreakdownHelp& help) {
  const std::string rows =
      !help.rows.empty()
          ? help.rows
          : std::string("'operator' (one row per operator in program order), 'name' (summed by name) or ") +
                kRowsKindHelp;
  sub->add_option("-f,--format", flags.format, help.format)
      ->check(one_of({"text", "csv", "json"}))
      ->capture_default_str();
  sub->add_option("-o,--output", flags.output, help.output)->capture_default_str();
  sub->add_option("--rows", flags.rows,
                  "'auto' (the default): one row per operator for stages of at most 100 operators per rank, per name "
                  "beyond; " +
                      rows)
      ->check(one_of({"auto", "operator", "name", "kind"}))
      ->capture_default_str();
  sub->add_flag("--per-rank", flags.per_rank, help.per_rank);
}

void add_timeline_flags(CLI::App* sub, BreakdownFlags& flags, const char* help) {
  sub->add_option("--timeline", flags.timeline, help);
  add_timeline_ranks_option(sub, flags.timeline_ranks);
}

void check_breakdown_outputs(const BreakdownFlags& flags, int world_size) {
  check_output_path(flags.output);
  if (!flags.timeline.empty()) check_output_path(flags.timeline);
  check_timeline_ranks(flags.timeline_ranks, world_size);
  check_distinct_outputs({{"--output", flags.output}, {"--timeline", flags.timeline}});
}

report::BreakdownOptions breakdown_view(const BreakdownFlags& flags) {
  report::BreakdownOptions view;
  view.key = report::row_key_of(flags.rows);
  view.per_rank = flags.per_rank;
  view.ranks_on_demand = true;  // each rank's table made as it is written: never all in memory
  return view;
}

}  // namespace ccsim::cli
