#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_values.hpp"
#include "core/input_error.hpp"
#include "core/output_file.hpp"
#include "core/phase.hpp"
#include "engine/child_process.hpp"
#include "engine/replay.hpp"
#include "study/what_if.hpp"

using namespace ccsim::cli;  // exit codes

namespace {

int run(CLI::App& app, int argc, char** argv) {
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      // --help, --version and usage errors: what goes to stdout is written and checked here,
      // where a failed write still has its reason.
      std::ostringstream out;
      const int code = app.exit(e, out, std::cerr);
      ccsim::write_stdout(out.str());
      return code == 0 ? 0 : kUsage;
    }
  } catch (const ccsim::UnknownNameError& e) {
    // An unknown preset, model or key on the command line is a malformed command line, as an
    // unknown option or value is; in a file, it is bad input.
    fmt::print(stderr, "ccsim: error: {}\n", e.what());
    return e.from_command_line() ? kUsage : kBadInput;
  } catch (const ccsim::InputError& e) {
    fmt::print(stderr, "ccsim: error: {}\n", e.what());
    return kBadInput;
  } catch (const ccsim::engine::SimulationError& e) {
    fmt::print(stderr, "ccsim: error: {}\n", e.what());
    return kStalled;
  } catch (const ccsim::engine::ResourceError& e) {
    fmt::print(stderr, "ccsim: error: {}\n", e.what());
    return kBadInput;  // an input too large for this machine: the message names what and how to shrink it
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "ccsim: error: {}\n", ccsim::Phase::out_of_memory_message());
    return kBadInput;  // an input too large for this machine: the message names what and how to shrink it
  } catch (const std::exception& e) {
    fmt::print(stderr, "ccsim: internal error: {}\n", e.what());
    return kInternal;
  }
  return 0;
}

}  // namespace

/// The whole program but for a last guard: what run() does not turn into an exit code.
int run_main(int argc, char** argv) {
  CLI::App app{"ccsim: simulate the communication of LLM training on supercomputers", "ccsim"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ccsim 0.1");
  app.footer(
      "Exit codes: 0 success; 1 bad input (the message names file, line and field) or an input too large for this "
      "machine; 2 a malformed command line (unknown option, command, preset, model or --set key; missing or bad "
      "value); 3 a simulation that cannot progress; 4 internal error.");
  ccsim::cli::setup_replay(app);
  ccsim::cli::setup_platform(app);
  ccsim::cli::setup_compare(app);
  ccsim::cli::setup_breakeven(app);
  ccsim::cli::setup_measure(app);
  ccsim::cli::setup_calibrate(app);
  ccsim::cli::setup_validate(app);
  ccsim::cli::setup_trace(app);
  ccsim::cli::setup_cost(app);
  ccsim::cli::setup_whatif(app);
  ccsim::cli::setup_report(app);
  ccsim::cli::setup_sweep(app);
  ccsim::cli::setup_predict(app);
  ccsim::cli::check_option_values(app);                                        // after every subcommand is set up
  ccsim::cli::check_keys_of(app, "--set", ccsim::study::what_if_key_names());  // when parsed
  ccsim::cli::report_usage_errors(app);
  int code = run(app, argc, argv);
  // Whatever the command printed (results, --help), a lost write must not exit 0.
  if (auto error = ccsim::flush_stdout()) {
    fmt::print(stderr, "ccsim: error: {}\n", *error);
    if (code == 0) code = kBadInput;
  }
  return code;
}

int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {  // setting up the options, or printing, failed
    std::fprintf(stderr, "ccsim: internal error: %s\n", e.what());
    return ccsim::cli::kInternal;
  }
}
