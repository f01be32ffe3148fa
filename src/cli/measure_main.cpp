// ccsim-measure: the MPI program of real measurements (see src/measure/README.md).
// Start it with mpirun (or through `ccsim measure`, which does).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/measure_cmd.hpp"
#include "cli/option_values.hpp"
#include "core/input_error.hpp"
#include "core/output_file.hpp"
#include "measure/communicator.hpp"

using namespace ccsim::cli;  // exit codes

/// Long: the MPI program's life in order: parse, initialise MPI, run, write, finalise on every path.
int run_main(int argc, char** argv) {
  ccsim::cli::MeasureCommand command;
  CLI::App app{
      "ccsim-measure: run ccsim's collective schedules for real over MPI or UCX, with the MPI library's "
      "collectives as references, and write measurements for calibration",
      "ccsim-measure"};
  ccsim::cli::setup_measure_options(app, command);
  app.footer(
      "Exit codes: 0 success; 1 bad input (the message names file, line and field); 2 a malformed command line "
      "(unknown option or name: collective, algorithm, transport, codec, group kind, layout key; missing or bad value); 4 internal error; 5 a measured result failed its check.");
  ccsim::cli::check_option_values(app);
  ccsim::cli::report_usage_errors(app);
  // Options are parsed before MPI starts, identically on every rank; only rank 0 reports.
  const char* rank_env = std::getenv("OMPI_COMM_WORLD_RANK");
  const bool first = rank_env == nullptr || std::string_view(rank_env) == "0";
  try {
    app.parse(argc, argv);
    ccsim::cli::finish_measure_options(command);
  } catch (const CLI::ParseError& e) {
    if (!first) return e.get_exit_code() == 0 ? 0 : kUsage;
    // --help goes to stdout through write_stdout, so that a failed write is an error.
    std::ostringstream out;
    const int code = app.exit(e, out, std::cerr);
    try {
      ccsim::write_stdout(out.str());
    } catch (const ccsim::InputError& write_error) {
      fmt::print(stderr, "ccsim-measure: error: {}\n", write_error.what());
      return kBadInput;
    }
    return code == 0 ? 0 : kUsage;
  } catch (const ccsim::UnknownNameError& e) {
    // An unknown collective, algorithm, codec, ... on the command line is a malformed command
    // line, as in ccsim (main.cpp); in a file (none is read yet), bad input.
    if (first) fmt::print(stderr, "ccsim-measure: error: {}\n", e.what());
    return e.from_command_line() ? kUsage : kBadInput;
  } catch (const ccsim::InputError& e) {
    if (first) fmt::print(stderr, "ccsim-measure: error: {}\n", e.what());
    return kBadInput;
  }
  std::string line = "ccsim-measure";
  for (int i = 1; i < argc; ++i) line += std::string(" ") + argv[i];
  command.options.command_line = line;
  command.options.table_on_stdout = command.output != "-" && !command.output.empty();

  try {
    ccsim::measure::MpiSession mpi(argc, argv);
    const auto world = ccsim::measure::Communicator::world();
    nlohmann::ordered_json doc;
    try {
      doc = ccsim::measure::run_measurements(command.options);
    } catch (const ccsim::measure::JobError& e) {
      // Every rank raised it together: rank 0 reports it, and every rank ends (no collective).
      if (world.rank() == 0) fmt::print(stderr, "ccsim-measure: error: {}\n", e.what());
      return kBadInput;
    } catch (const std::exception& e) {
      // An error of some ranks leaves the others waiting in a collective: end the whole job.
      const bool input = dynamic_cast<const ccsim::InputError*>(&e) != nullptr;
      fmt::print(stderr, "ccsim-measure: rank {}: error: {}\n", world.rank(), e.what());
      ccsim::measure::MpiSession::abort_job(input ? kBadInput : kInternal);
    }
    // Rank 0 writes the output; every rank then ends with the worst outcome of any (a
    // collective that every rank reaches, whatever failed on rank 0).
    int code = 0;
    if (!doc.is_null()) {
      try {
        ccsim::write_output(command.output, doc.dump(1) + "\n");
        const int failed = doc["failed_checks"].get<int>();
        if (failed > 0) {
          fmt::print(stderr, "ccsim-measure: {} series failed their result check (see \"check\" in the output)\n",
                     failed);
          code = kCheckFailed;
        }
      } catch (const std::exception& e) {
        fmt::print(stderr, "ccsim-measure: error: {}\n", e.what());
        code = dynamic_cast<const ccsim::InputError*>(&e) != nullptr ? kBadInput : kInternal;
      }
    }
    if (auto error = ccsim::flush_stdout()) {
      fmt::print(stderr, "ccsim-measure: error: {}\n", *error);
      if (code == 0) code = kBadInput;
    }
    return static_cast<int>(world.max(static_cast<double>(code)));
  } catch (const std::exception& e) {
    fmt::print(stderr, "ccsim-measure: error: {}\n", e.what());
    return kInternal;
  }
}

int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {  // setting up the options failed
    std::fprintf(stderr, "ccsim-measure: internal error: %s\n", e.what());
    return kInternal;
  }
}
