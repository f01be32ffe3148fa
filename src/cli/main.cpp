#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_values.hpp"
#include "core/input_error.hpp"
#include "engine/replay.hpp"

using namespace ccsim::cli;  // exit codes

int main(int argc, char** argv) {
  CLI::App app{"ccsim: simulate the communication of LLM training on supercomputers", "ccsim"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ccsim 0.1");
  ccsim::cli::setup_replay(app);
  ccsim::cli::setup_platform(app);
  ccsim::cli::setup_compare(app);
  ccsim::cli::setup_breakeven(app);
  ccsim::cli::setup_measure(app);
  ccsim::cli::setup_calibrate(app);
  ccsim::cli::setup_validate(app);
  ccsim::cli::setup_trace(app);
  ccsim::cli::setup_cost(app);
  ccsim::cli::check_option_values(app);  // after every subcommand is set up
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const ccsim::InputError& e) {
    fmt::print(stderr, "ccsim: error: {}\n", e.what());
    return kBadInput;
  } catch (const ccsim::engine::SimulationError& e) {
    fmt::print(stderr, "ccsim: error: {}\n", e.what());
    return kStalled;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ccsim: internal error: {}\n", e.what());
    return kInternal;
  }
  return 0;
}
