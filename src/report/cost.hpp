#pragma once

#include <optional>
#include <string>

namespace ccsim::report {

/// What training a job costs, from one simulated iteration: time, node-hours, money, energy.
struct CostInputs {
  double iteration_s = 0;                     ///< one training iteration, simulated
  double iterations = 0;                      ///< how many the training runs
  int nodes = 0;                              ///< nodes the job holds
  std::optional<double> price_per_node_hour;  ///< money per node-hour (any currency)
  std::optional<double> power_kw_per_node;    ///< average power of one node, kW
};

struct CostFigures {
  double seconds = 0;
  double node_hours = 0;
  std::optional<double> money;
  std::optional<double> energy_kwh;
};

/// time = iteration_s * iterations; node-hours = nodes * time / 3600; money = node-hours *
/// price; energy = node-hours * power (kWh). Inputs must be finite and non-negative (throws
/// std::invalid_argument otherwise).
CostFigures training_cost(const CostInputs& in);

/// "12 d 03 h", "5.2 h", "41 min", "12.5 s": a duration for people.
std::string format_duration(double seconds);

}  // namespace ccsim::report
