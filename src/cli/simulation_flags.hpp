#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine/replay.hpp"
#include "report/breakdown.hpp"
#include "report/summary.hpp"
#include "study/data_folders.hpp"
#include "study/data_lookup.hpp"
#include "study/replay_setup.hpp"
#include "study/what_if.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

namespace ccsim::cli {

/// The options every simulating subcommand shares: how a trace is replayed (study/replay_setup.hpp).
using SimulationFlags = study::ReplaySettings;

/// Registers --platform, --algo, --placement, --oversubscribe, --network-model, --simgrid-log and, with
/// `compress`, --compress, --compress-min-bytes and --compress-all on `sub`.
void add_simulation_flags(CLI::App* sub, SimulationFlags& flags, bool compress);

/// Registers --set KEY=VALUE (repeatable) on `sub`: the what-if overrides of study/what_if.hpp.
void add_set_flag(CLI::App* sub, std::vector<std::string>& settings);

/// `flags` with the compressor and algorithm settings of --set applied.
using study::with_settings;

/// Choices for one_of (cli/option_values.hpp): `names` (algorithms of the registry), after "auto" when `with_auto`.
std::vector<std::string> algorithm_choices(const std::vector<std::string_view>& names, bool with_auto);

/// --rows of report: the help of 'kind'.
inline constexpr const char* kRowsKindHelp =
    "'kind': where each rank's time goes, compute, exposed communication by kind, pipeline bubble, collective wait "
    "and idle, adding up to the iteration (docs/summary.md)";

/// The output options of replay, compare and whatif, as given.
struct BreakdownFlags {
  std::string format = "text";
  std::string output = "-";
  std::string rows = "auto";
  bool per_rank = false;
  std::string timeline;
  std::string timeline_ranks = "auto";
};

/// What --format, --output, --rows ("": the one of compare and whatif) and --per-rank say of
/// a command's output, in --help.
struct BreakdownHelp {
  const char* format;
  const char* output;
  std::string rows;
  const char* per_rank;
};

/// Registers -f/--format (text, csv, json), -o/--output, --rows and --per-rank on `sub`.
void add_breakdown_flags(CLI::App* sub, BreakdownFlags& flags, const BreakdownHelp& help);
/// Registers --timeline, with `help`, and --timeline-ranks on `sub`.
void add_timeline_flags(CLI::App* sub, BreakdownFlags& flags, const char* help);
/// The checks of the outputs before the simulations, which may take long: the files can be
/// written and are distinct, the timeline's ranks are in a job of `world_size` ranks.
void check_breakdown_outputs(const BreakdownFlags& flags, int world_size);
/// The breakdown's rows and tables as the flags say, each rank's made as it is written.
report::BreakdownOptions breakdown_view(const BreakdownFlags& flags);

/// The data folders of every command: those of the environment variables, then the source
/// tree's (study/data_folders.hpp), read once.
const study::DataFolders& data_folders();

/// The data files of study/ and predict/ analyses, found in data_folders().
study::DataLookup data_lookup();

/// The platform preset NAME (in data_folders()) or platform FILE, read and built (with
/// `overrides` applied: --set).
topology::Platform read_named_platform(const std::string& name, const topology::PlatformOverrides& overrides = {});

}  // namespace ccsim::cli
