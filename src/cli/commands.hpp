#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/output_file.hpp"

namespace ccsim::study {
struct CostOptions;
}  // namespace ccsim::study

namespace ccsim::cli {

// One file per subcommand: setup_<cmd> registers it and its options on the app; its
// callback runs run_<cmd>. Library code throws; main() turns exceptions into exit codes.
void setup_replay(CLI::App& app);
void setup_platform(CLI::App& app);
void setup_compare(CLI::App& app);
void setup_breakeven(CLI::App& app);
void setup_measure(CLI::App& app);
/// `calibrate`, the parent of the fitting subcommands, and its `network` child (calibrate_cmd.cpp).
void setup_calibrate(CLI::App& app);
/// Adds `compressor` to the `calibrate` parent (calibrate_compressor_cmd.cpp).
void setup_calibrate_compressor(CLI::App& calibrate);
/// Adds `trace` (a compute model from measured traces) to the `calibrate` parent (calibrate_trace_cmd.cpp).
void setup_calibrate_trace(CLI::App& calibrate);
/// Adds `compute` (an accelerator profile from kernel measurements) to the `calibrate` parent
/// (calibrate_compute_cmd.cpp).
void setup_calibrate_compute(CLI::App& calibrate);
/// `validate`: a network model's predictions against measurements (validate_cmd.cpp).
void setup_validate(CLI::App& app);
/// `whatif`: a trace's baseline against the same run with --set changes (whatif_cmd.cpp).
void setup_whatif(CLI::App& app);
/// `cost`: time, node-hours, money, energy of training (cost_cmd.cpp).
void setup_cost(CLI::App& app);
/// `report`: Markdown and HTML report with figures (report_cmd.cpp).
void setup_report(CLI::App& app);
/// `predict`: fit on traced runs, synthesise an untraced configuration, replay it (predict_cmd.cpp).
void setup_predict(CLI::App& app);
/// `trace synth` (trace_cmd.cpp).
void setup_trace(CLI::App& app);
/// `sweep`: scenarios of a spec in parallel, locally or over MPI ranks (sweep_cmd.cpp).
void setup_sweep(CLI::App& app);

/// Shared by calibrate network and validate: the measurement file (any format of
/// calibrate::read_any_measurements), --series and --ranks.
void add_measurement_input(CLI::App* sub, std::string& measurements, std::string& series, std::optional<int>& ranks,
                           std::string& group);

/// Shared by calibrate trace and predict: --flop-exponent fit|1 (calibrate::flop_exponent_of),
/// bound to `value` ("fit" or "1"), and its meaning.
void add_flop_exponent_option(CLI::App* sub, std::string& value);

/// Shared by cost and report: --iterations, --tokens, --tokens-per-iteration, --price and
/// --power, bound to `options` (study::check_cost_options checks them).
void add_cost_options(CLI::App* sub, study::CostOptions& options);

}  // namespace ccsim::cli
