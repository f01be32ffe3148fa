#include "measure/selection.hpp"

#include <algorithm>
#include <climits>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collective/algorithm.hpp"
#include "collective/registry.hpp"
#include "compress/codec.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/spelling.hpp"

namespace ccsim::measure {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, separator);) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

/// A list option that selects nothing (--op ",") is an error, not an empty measurement.
std::vector<std::string> split_selection(const std::string& text, const std::string& option,
                                         const std::string& choices) {
  auto out = split(text, ',');
  if (out.empty()) {
    throw InputError("command line", 0, option, fmt::format("expected at least one of {}, got \"{}\"", choices, text));
  }
  return out;
}

/// An unknown name given to `option` (a collective, an algorithm, a group kind, ...): a
/// malformed command line (UnknownNameError: exit 2, as ccsim's own unknown names), worded as
/// ccsim's: 'unknown collective "allreduce"; did you mean all_reduce? choices: ...'.
[[noreturn]] void unknown_name(const std::string& option, std::string_view what, const std::string& name,
                               const std::vector<std::string>& choices, const std::string& after = "") {
  throw UnknownNameError("command line", 0, option,
                         fmt::format("unknown {} \"{}\"; {}choices: {}{}", what, name,
                                     did_you_mean(name, choices, "", " "), fmt::join(choices, ", "), after));
}

std::vector<collective::Collective> parse_ops(const std::string& text) {
  std::vector<collective::Collective> ops;
  for (const auto& name : split_selection(text, "--op", "all_reduce, all_gather, reduce_scatter")) {
    if (name == "all_reduce")
      ops.push_back(collective::Collective::kAllReduce);
    else if (name == "all_gather")
      ops.push_back(collective::Collective::kAllGather);
    else if (name == "reduce_scatter")
      ops.push_back(collective::Collective::kReduceScatter);
    else
      unknown_name("--op", "collective", name, {"all_reduce", "all_gather", "reduce_scatter"});
  }
  return ops;
}

/// --algo: the MPI library's own ("mpi") and ccsim's schedules, each one that runs on one of
/// the collectives of --op (`ops_text`, for the message).
std::vector<std::string> parse_algorithms(const std::string& text, const std::vector<collective::Collective>& ops,
                                          const std::string& ops_text) {
  const auto known = collective::algorithms(collective::Collective::kAllReduce);
  std::vector<std::string> implementations{"mpi"};  // the library's own, then ccsim's schedules
  for (std::string_view name : known) {
    if (name != "auto") implementations.emplace_back(name);
  }
  std::vector<std::string> algorithms =
      split_selection(text, "--algo", fmt::format("{}", fmt::join(implementations, ", ")));
  for (const auto& a : algorithms) {
    if (a == "mpi") continue;
    if (std::find(implementations.begin(), implementations.end(), a) == implementations.end()) {
      unknown_name("--algo", "implementation", a, implementations);
    }
    // Each collective runs the algorithms of the list it has; one that none of --op has would
    // measure nothing.
    std::vector<std::string_view> runs_on;
    bool runs = false;
    for (auto op : {collective::Collective::kAllReduce, collective::Collective::kAllGather,
                    collective::Collective::kReduceScatter}) {
      if (collective::find_algorithm(op, a) == nullptr) continue;
      runs_on.push_back(collective::to_string(op));
      runs = runs || std::find(ops.begin(), ops.end(), op) != ops.end();
    }
    if (!runs) {
      throw InputError("command line", 0, "--algo",
                       fmt::format("\"{}\" runs on none of the collectives of --op ({}): it is an algorithm of {}", a,
                                   ops_text, fmt::join(runs_on, ", ")));
    }
  }
  return algorithms;
}

std::vector<std::string> parse_transports(const std::string& text) {
  const auto available = available_transports();
  std::vector<std::string> transports =
      split_selection(text, "--transport", fmt::format("{}", fmt::join(available, ", ")));
  for (const auto& t : transports) {
    if (std::find(available.begin(), available.end(), t) == available.end()) {
      unknown_name("--transport", "transport", t, available, fmt::format(" ({})", transports_note()));
    }
  }
  return transports;
}

/// --sizes: fp32 buffers whose element count fits MPI's int counts.
std::vector<std::uint64_t> parse_sizes(const std::string& text) {
  std::vector<std::uint64_t> sizes = parse_size_list(text, "--sizes");
  for (std::uint64_t bytes : sizes) {
    if (bytes % sizeof(float) != 0) {
      throw InputError("command line", 0, "--sizes",
                       fmt::format("expected sizes that are a positive multiple of 4 bytes (fp32), got {}", bytes));
    }
    // MPI counts elements in an int: the library's reference all_reduce takes the whole buffer.
    if (bytes / sizeof(float) > static_cast<std::uint64_t>(INT_MAX)) {
      throw InputError("command line", 0, "--sizes",
                       fmt::format("{} bytes per rank is more than MPI's int counts allow: at most {} fp32 elements "
                                   "({} bytes, just under 8 GiB)",
                                   bytes, INT_MAX, static_cast<std::uint64_t>(INT_MAX) * sizeof(float)));
    }
  }
  return sizes;
}

std::vector<std::string> parse_groups(const std::string& text) {
  std::vector<std::string> groups = split_selection(text, "--groups", "world, tp, pp, dp");
  for (const auto& g : groups) {
    if (g != "world" && g != "tp" && g != "pp" && g != "dp")
      unknown_name("--groups", "group kind", g, {"world", "tp", "pp", "dp"});
  }
  return groups;
}

/// --layout tp=T,pp=P,dp=D into `layout`, each key given once or not at all.
void parse_layout(const std::string& text, Layout& layout) {
  for (const auto& item : split(text, ',')) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq);
    if (key != "tp" && key != "pp" && key != "dp") unknown_name("--layout", "key", key, {"tp", "pp", "dp"});
    const auto value = eq == std::string::npos ? std::nullopt : parse_uint(std::string_view(item).substr(eq + 1));
    if (!value || *value < 1 || *value > 1u << 20) {
      throw InputError("command line", 0, "--layout",
                       fmt::format("expected tp=N, pp=N or dp=N with N >= 1, got \"{}\"", item));
    }
    int& slot = key == "tp" ? layout.tp : key == "pp" ? layout.pp : layout.dp;
    slot = static_cast<int>(*value);
  }
}

}  // namespace

void apply_selection(const Selection& selection, MeasureOptions& options) {
  options.ops = parse_ops(selection.ops);
  options.algorithms = parse_algorithms(selection.algorithms, options.ops, selection.ops);
  options.transports = parse_transports(selection.transports);
  // The codec is built per size (a relative bound needs the data's range); check it now.
  compress::make_codec(absolute_codec_spec(options.codec, 1.0), "--codec");
  options.sizes = parse_sizes(selection.sizes);
  options.groups = parse_groups(selection.groups);
  if (!selection.layout.empty()) parse_layout(selection.layout, options.layout);
}

std::vector<std::uint64_t> parse_size_list(const std::string& text, const std::string& field) {
  std::vector<std::uint64_t> out;
  if (text.find(':') != std::string::npos) {
    const auto parts = split(text, ':');
    if (parts.size() < 2 || parts.size() > 3) {
      throw InputError("command line", 0, field, fmt::format("expected FROM:TO[:xFACTOR], got \"{}\"", text));
    }
    const std::uint64_t from = parse_bytes_or_throw(parts[0], "command line", field);
    const std::uint64_t to = parse_bytes_or_throw(parts[1], "command line", field);
    std::uint64_t factor = 2;
    if (parts.size() == 3) {
      auto f = parts[2].starts_with('x') ? parse_uint(std::string_view(parts[2]).substr(1)) : std::nullopt;
      if (!f || *f < 2) {
        throw InputError("command line", 0, field, fmt::format("expected a factor x2, x4, ..., got \"{}\"", parts[2]));
      }
      factor = *f;
    }
    if (from == 0 || to < from) {
      throw InputError("command line", 0, field, fmt::format("expected 0 < FROM <= TO, got \"{}\"", text));
    }
    for (std::uint64_t s = from; s <= to; s *= factor) {
      out.push_back(s);
      if (s > to / factor) break;
    }
    return out;
  }
  for (const auto& item : split(text, ',')) out.push_back(parse_bytes_or_throw(item, "command line", field));
  if (out.empty()) throw InputError("command line", 0, field, "expected at least one size");
  return out;
}

}  // namespace ccsim::measure
