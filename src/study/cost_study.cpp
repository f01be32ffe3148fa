#include "study/cost_study.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "report/breakdown.hpp"
#include "study/job_facts.hpp"

namespace ccsim::study {
namespace {

double iteration_s(const engine::Result& r) { return r.makespan_s / std::max(r.iterations, 1); }

nlohmann::ordered_json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

}  // namespace

void check_cost_options(const CostOptions& cmd) {
  for (auto [flag, v] : {std::pair{"--iterations", cmd.iterations},
                         {"--tokens", cmd.tokens},
                         {"--tokens-per-iteration", cmd.tokens_per_iteration}}) {
    if (!std::isfinite(v) || v < 0 || v > 1e18) {
      throw InputError("command line", 0, flag, fmt::format("expected a number in [0, 1e18], got \"{}\"", v));
    }
  }
  // Ranges first, so that a negative count is named as such rather than as a missing one.
  if ((cmd.iterations > 0) == (cmd.tokens > 0)) {
    throw InputError("command line", 0, cmd.tokens > 0 || cmd.iterations > 0 ? "--iterations" : "--iterations/--tokens",
                     "give either --iterations N or --tokens N (with --tokens-per-iteration), N positive");
  }
  if (cmd.tokens > 0 && !(cmd.tokens_per_iteration > 0)) {
    throw InputError("command line", 0, "--tokens-per-iteration",
                     "--tokens needs the tokens one iteration trains (global batch x sequence length)");
  }
  for (auto [flag, v] : {std::pair{"--price", cmd.price}, {"--power", cmd.power}}) {
    if (v && (!std::isfinite(*v) || *v < 0 || *v > 1e9)) {
      throw InputError("command line", 0, flag, fmt::format("expected a number in [0, 1e9], got \"{}\"", *v));
    }
  }
}

namespace {

/// Price and power of one node: the options, else the platform file's figures (with their source).
struct NodeRates {
  std::optional<double> price, power;
  bool price_from_file = false, power_from_file = false;
};

NodeRates node_rates(const CostOptions& cmd, const topology::Platform& platform) {
  const std::optional<topology::PlatformCost>& file = platform.cost;
  NodeRates r;
  r.price = cmd.price ? cmd.price : file ? file->price_per_node_hour : std::nullopt;
  r.power = cmd.power ? cmd.power : file ? file->power_kw_per_node : std::nullopt;
  r.price_from_file = !cmd.price && r.price.has_value();
  r.power_from_file = !cmd.power && r.power.has_value();
  return r;
}

/// The assumptions on the iteration time, the nodes and the iterations.
void add_job_assumptions(CostStudy& s, const CostOptions& cmd, const trace::Trace& trace,
                         const topology::Platform& platform, const engine::Result& first, int packed) {
  const topology::Network& net = platform.network;
  const int per_node = net.accelerators_per_node();
  s.assumptions.push_back(fmt::format(
      "iteration time: the simulated makespan{}",
      first.iterations > 0 ? fmt::format(" divided by the {} iterations the trace holds", first.iterations)
                           : std::string(" (the trace does not say how many iterations it holds: taken as one)")));
  if (s.nodes == packed) {
    s.assumptions.push_back(fmt::format(
        "nodes: ceil({} ranks / {} per node), at most the platform's {}; the job holds them for the whole run",
        trace.world_size, per_node, net.node_count()));
  } else {
    s.assumptions.push_back(fmt::format(
        "nodes: the {} nodes that placement {} put the {} ranks on (packed {} to a node, they would fill {}); the job "
        "holds them for the whole run",
        s.nodes, first.placement, trace.world_size, per_node, packed));
  }
  if (cmd.tokens > 0) {
    s.assumptions.push_back(fmt::format("iterations: ceil({:.6g} tokens / {:.6g} tokens per iteration)", cmd.tokens,
                                        cmd.tokens_per_iteration));
  }
}

/// The assumptions on price and power: where each comes from, or that it is missing.
void add_rate_assumptions(CostStudy& s, const CostOptions& cmd, const topology::Platform& platform,
                          const NodeRates& rates) {
  const std::optional<topology::PlatformCost>& file = platform.cost;
  // What the platform file says, for an option that overrides it.
  auto overridden = [&](const std::optional<double>& figure, const std::string& unit) {
    return figure ? fmt::format("; overrides the platform file's {:.6g}{}", *figure, unit) : std::string();
  };
  if (cmd.price) {
    s.assumptions.push_back(fmt::format(
        "price: {:.6g} per node-hour (--price{})", *cmd.price,
        overridden(file ? file->price_per_node_hour : std::nullopt, file ? " " + file->currency : std::string())));
  } else if (rates.price_from_file) {
    s.assumptions.push_back(fmt::format("price: {:.6g} {} per node-hour (platform {}, its \"cost\"; --price overrides)",
                                        *rates.price, s.currency, platform.name));
  } else {
    s.assumptions.push_back(
        "price: not given (--price PER_NODE_HOUR, or \"cost\" in the platform file): no money figure");
  }
  if (cmd.power) {
    s.assumptions.push_back(fmt::format("power: {:.6g} kW per node, average over the run (--power{})", *cmd.power,
                                        overridden(file ? file->power_kw_per_node : std::nullopt, " kW")));
  } else if (rates.power_from_file && file->power_kind == topology::PlatformCost::PowerKind::kAverage) {
    s.assumptions.push_back(fmt::format(
        "power: {:.6g} kW per node, an average measured over training (platform {}, its \"cost\"; --power overrides)",
        *rates.power, platform.name));
  } else if (rates.power_from_file) {
    s.assumptions.push_back(
        fmt::format("power: {:.6g} kW per node, the platform's maximum (full-load) figure, not an average over the "
                    "run (platform {}, its \"cost\"; --power overrides): the energy is an upper bound",
                    *rates.power, platform.name));
  } else {
    s.assumptions.push_back(
        "power: not given (--power KW_PER_NODE, or \"cost\" in the platform file): no energy figure");
  }
  if (rates.price_from_file || rates.power_from_file) {
    s.assumptions.push_back(fmt::format("cost source: {}", file->source));
  }
}

/// What the energy figure is, from where the power comes from and what the platform says it is.
std::string energy_basis(const CostOptions& cmd, const topology::Platform& platform) {
  if (cmd.power) return "estimate: the average power per node of --power";
  if (platform.cost->power_kind == topology::PlatformCost::PowerKind::kAverage) {
    return "estimate: the platform's average power per node, measured over training";
  }
  return "upper bound: the platform's maximum (full-load) power per node, not an average over the run";
}

}  // namespace

CostStudy study_cost(const CostOptions& cmd, const trace::Trace& trace, const topology::Platform& platform,
                     const std::vector<std::pair<std::string, const engine::Result*>>& runs) {
  const topology::Network& net = platform.network;
  const int per_node = net.accelerators_per_node();
  CostStudy s;
  s.trace = trace.name;
  s.platform = platform.name;
  s.ranks = trace.world_size;
  // The nodes the job holds: those its placement put ranks on (Result::nodes_used); the packed
  // count where a result does not say.
  const int packed = std::min(net.node_count(), (trace.world_size + per_node - 1) / per_node);
  const engine::Result& first = *runs.front().second;
  s.nodes = first.nodes_used > 0 ? first.nodes_used : packed;
  s.iterations = cmd.iterations > 0 ? cmd.iterations : std::ceil(cmd.tokens / cmd.tokens_per_iteration);
  const NodeRates rates = node_rates(cmd, platform);
  s.has_price = rates.price.has_value();
  s.has_power = rates.power.has_value();
  if (s.has_power) s.energy_basis = energy_basis(cmd, platform);
  s.energy_upper_bound =
      rates.power_from_file && platform.cost->power_kind == topology::PlatformCost::PowerKind::kMaximum;
  if (rates.price_from_file) s.currency = platform.cost->currency;
  add_job_assumptions(s, cmd, trace, platform, first, packed);
  add_rate_assumptions(s, cmd, platform, rates);
  s.assumptions.push_back(fmt::format("network: {}", first.network_model));
  if (!first.compute.empty()) s.assumptions.push_back(fmt::format("compute: {}", first.compute));
  const report::JobFacts facts = job_facts(trace, platform);
  for (const auto& [name, result] : runs) {
    s.summaries.push_back(report::make_summary(*result, facts));
    report::CostInputs in;
    in.iteration_s = iteration_s(*result);
    in.iterations = s.iterations;
    in.nodes = s.nodes;
    in.price_per_node_hour = rates.price;
    in.power_kw_per_node = rates.power;
    s.names.push_back(name);
    s.iteration_s.push_back(in.iteration_s);
    s.figures.push_back(report::training_cost(in));
  }
  return s;
}

std::vector<std::vector<std::string>> cost_rows(const CostStudy& s) {
  std::vector<std::vector<std::string>> rows;
  const bool both = s.names.size() == 2;
  auto row = [&](const std::string& what, auto value, auto render) {
    std::vector<std::string> r{what, render(value(0))};
    if (both) {
      const double a = value(0), b = value(1);
      r.push_back(render(b));
      r.push_back(fmt::format("{:.1f}%", a > 0 ? (a - b) / a * 100 : 0.0));
    }
    rows.push_back(std::move(r));
  };
  row(
      "iteration", [&](std::size_t i) { return s.iteration_s[i]; },
      [](double v) { return fmt::format("{:.3f} ms", v * 1e3); });
  row(
      "time to train", [&](std::size_t i) { return s.figures[i].seconds; }, report::format_duration);
  row(
      "node-hours", [&](std::size_t i) { return s.figures[i].node_hours; },
      [](double v) { return fmt::format("{:.6g}", v); });
  if (s.has_price) {
    row(
        "money", [&](std::size_t i) { return *s.figures[i].money; },
        [&](double v) { return format_money(v, s.currency); });
  }
  if (s.has_power) {
    row(
        s.energy_upper_bound ? "energy, at most" : "energy", [&](std::size_t i) { return *s.figures[i].energy_kwh; },
        [](double kwh) {
          // kWh to GWh, whichever keeps the figure below 1000 (a training run spans all three)
          if (kwh < 1e3) return fmt::format("{:.6g} kWh", kwh);
          if (kwh < 1e6) return fmt::format("{:.6g} MWh", kwh / 1e3);
          return fmt::format("{:.6g} GWh", kwh / 1e6);
        });
  }
  return rows;
}

std::string format_money(double amount, const std::string& currency) {
  return report::format_thousands(amount, 2) + (currency.empty() ? std::string() : " " + currency);
}

std::string cost_text(const CostStudy& s) {
  std::ostringstream summary;
  std::vector<std::pair<std::string, const report::Summary*>> runs;
  for (std::size_t i = 0; i < s.summaries.size(); ++i) runs.emplace_back(s.names[i], &s.summaries[i]);
  if (!runs.empty()) report::write_summary_text(runs, summary);
  std::string out = summary.str();
  out += fmt::format("cost: {} on {}, {} ranks on {} node(s), {} iterations\n", s.trace, s.platform, s.ranks, s.nodes,
                     report::format_thousands(s.iterations, 0));
  out += "assumptions:\n";
  for (const std::string& a : s.assumptions) out += fmt::format("  {}\n", a);
  const bool both = s.names.size() == 2;
  out += fmt::format("{:<16} {:>16}", "", "plain");
  if (both) out += fmt::format(" {:>16} {:>9}", "compressed", "saving");
  out += "\n";
  for (const auto& r : cost_rows(s)) {
    out += fmt::format("{:<16} {:>16}", r[0], r[1]);
    if (both) out += fmt::format(" {:>16} {:>9}", r[2], r[3]);
    out += "\n";
  }
  return out;
}

std::string cost_json(const CostStudy& s) {
  nlohmann::ordered_json doc;
  for (std::size_t i = 0; i < s.summaries.size(); ++i)
    doc["summary"][s.names[i]] = report::summary_json(s.summaries[i]);
  doc["command"] = "cost";
  doc["trace"] = s.trace;
  doc["platform"] = s.platform;
  doc["ranks"] = s.ranks;
  doc["nodes"] = s.nodes;
  doc["iterations"] = s.iterations;
  doc["assumptions"] = s.assumptions;
  doc["currency"] = s.currency.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s.currency);
  doc["energy_basis"] = s.energy_basis.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s.energy_basis);
  doc["runs"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < s.names.size(); ++i) {
    const report::CostFigures& f = s.figures[i];
    nlohmann::ordered_json run;
    run["name"] = s.names[i];
    run["iteration_s"] = s.iteration_s[i];
    run["time_to_train_s"] = f.seconds;
    run["node_hours"] = f.node_hours;
    run["money"] = optional_json(f.money);
    run["energy_kwh"] = optional_json(f.energy_kwh);
    doc["runs"].push_back(std::move(run));
  }
  if (s.names.size() == 2) {
    const double a = s.figures[0].seconds, b = s.figures[1].seconds;
    doc["saving_fraction"] = a > 0 ? (a - b) / a : 0.0;
  } else {
    doc["saving_fraction"] = nullptr;
  }
  return doc.dump(2) + "\n";
}

std::string cost_csv(const CostStudy& s) {
  const bool both = s.names.size() == 2;
  std::string out = fmt::format("section,figure,note,{}{}\n", fmt::join(s.names, ","), both ? ",saving_pct" : "");
  auto number = [](const std::optional<double>& v) { return v ? fmt::format("{:.6f}", *v) : std::string(); };
  auto saving = [&](const std::optional<double>& a, const std::optional<double>& b) {
    if (!both) return std::string();
    return a && b && *a > 0 ? fmt::format(",{:.4f}", (*a - *b) / *a * 100) : std::string(",");
  };
  std::vector<const report::Summary*> runs;
  for (const report::Summary& summary : s.summaries) runs.push_back(&summary);
  if (!runs.empty()) {
    for (const report::SummaryCsvRow& row : report::summary_csv_rows(runs)) {
      std::vector<std::string> values;
      for (const auto& v : row.values) values.push_back(number(v));
      out += fmt::format("summary,{},{},{}{}\n", row.figure, report::csv_field(row.note), fmt::join(values, ","),
                         row.is_time ? saving(row.values.front(), row.values.back())
                         : both      ? ","
                                     : "");
    }
  }
  auto row = [&](const std::string& figure, const std::string& note, auto value) {
    std::vector<std::string> values;
    for (std::size_t i = 0; i < s.names.size(); ++i) values.push_back(number(value(i)));
    out += fmt::format("cost,{},{},{}{}\n", figure, report::csv_field(note), fmt::join(values, ","),
                       saving(value(0), value(s.names.size() - 1)));
  };
  auto some = [](double v) { return std::optional<double>(v); };
  row("iteration_ms", "", [&](std::size_t i) { return some(s.iteration_s[i] * 1e3); });
  row("time_to_train_s", fmt::format("{:.0f} iterations", s.iterations),
      [&](std::size_t i) { return some(s.figures[i].seconds); });
  row("node_hours", fmt::format("{} node{}", s.nodes, s.nodes == 1 ? "" : "s"),
      [&](std::size_t i) { return some(s.figures[i].node_hours); });
  if (s.has_price) {
    row("money", s.currency.empty() ? "currency of --price" : s.currency,
        [&](std::size_t i) { return s.figures[i].money; });
  }
  if (s.has_power) row("energy_kwh", s.energy_basis, [&](std::size_t i) { return s.figures[i].energy_kwh; });
  return out;
}

}  // namespace ccsim::study
