#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/result.hpp"
#include "report/cost.hpp"
#include "report/summary.hpp"
#include "topology/platform.hpp"
#include "trace/trace.hpp"

namespace ccsim::study {

/// How much training a cost figure is for, and at what price and power (`cost`, `report`).
struct CostOptions {
  double iterations = 0;
  double tokens = 0;
  double tokens_per_iteration = 0;
  std::optional<double> price;
  std::optional<double> power;
};

/// Throws InputError naming the flag: neither or both of --iterations and --tokens, a value out of range.
void check_cost_options(const CostOptions& options);

/// The cost of training with each simulated run (plain, then compressed if any), with every
/// assumption it rests on, in words.
struct CostStudy {
  std::string trace;
  std::string platform;
  int ranks = 0;
  int nodes = 0;
  double iterations = 0;
  std::vector<std::string> assumptions;
  std::vector<std::string> names;            ///< "plain", "compressed"
  std::vector<double> iteration_s;           ///< per run
  std::vector<report::CostFigures> figures;  ///< per run
  std::vector<report::Summary> summaries;    ///< per run: the summary block, printed first
  bool has_price = false;
  bool has_power = false;
  std::string currency;  ///< of a price from the platform file; empty for --price (any currency)
  /// What the energy figure is ("upper bound: the platform's maximum (full-load) power per
  /// node, ..." or "estimate: ..."), in the JSON and CSV; empty without a power.
  std::string energy_basis;
  bool energy_upper_bound = false;  ///< the energy row reads "energy, at most"
};

/// `runs`: (name, result) of the same trace on `platform`, plain first. Price and power: the
/// options, else the platform file's "cost" (its source among the assumptions).
CostStudy study_cost(const CostOptions& options, const trace::Trace& trace, const topology::Platform& platform,
                     const std::vector<std::pair<std::string, const engine::Result*>>& runs);

/// The table rows of a study: {what, plain, compressed, saving} (the last two when compressed).
std::vector<std::vector<std::string>> cost_rows(const CostStudy& study);

/// The text report of `ccsim cost`, its JSON form (`--format json`) and its CSV form
/// (`--format csv`: section, figure, note, then the runs' values and the saving; the summary's
/// figures, then the cost's, each in the unit its name says).
std::string cost_text(const CostStudy& study);
std::string cost_json(const CostStudy& study);
std::string cost_csv(const CostStudy& study);

/// Money for people: fixed notation, thousands separators, cents, and the currency when known
/// ("42,630.12 USD").
std::string format_money(double amount, const std::string& currency);

}  // namespace ccsim::study
