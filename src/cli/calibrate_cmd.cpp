#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

namespace ccsim::cli {

void setup_calibrate(CLI::App& app) {
  CLI::App* calibrate =
      app.add_subcommand("calibrate", "Fit model parameters to measurements and write them as model files");
  calibrate->require_subcommand(1);
  setup_calibrate_compressor(*calibrate);
}

}  // namespace ccsim::cli
