#include "report/cost.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace ccsim::report {
namespace {

void check(double v, const char* what) {
  if (!std::isfinite(v) || v < 0)
    throw std::invalid_argument(fmt::format("{} must be finite and >= 0, got {}", what, v));
}

}  // namespace

CostFigures training_cost(const CostInputs& in) {
  check(in.iteration_s, "iteration time");
  check(in.iterations, "iterations");
  check(in.nodes, "nodes");
  if (in.price_per_node_hour) check(*in.price_per_node_hour, "price per node-hour");
  if (in.power_kw_per_node) check(*in.power_kw_per_node, "power per node");
  CostFigures f;
  f.seconds = in.iteration_s * in.iterations;
  f.node_hours = in.nodes * f.seconds / 3600.0;
  if (in.price_per_node_hour) f.money = f.node_hours * *in.price_per_node_hour;
  if (in.power_kw_per_node) f.energy_kwh = f.node_hours * *in.power_kw_per_node;
  return f;
}

std::string format_duration(double s) {
  if (s >= 2 * 86400) {
    const double days = std::floor(s / 86400);
    return fmt::format("{:.0f} d {:02.0f} h", days, std::floor((s - days * 86400) / 3600));
  }
  if (s >= 2 * 3600) return fmt::format("{:.1f} h", s / 3600);
  if (s >= 120) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.3g} s", s);
}

}  // namespace ccsim::report
