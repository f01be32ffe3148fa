#include "calibrate/network_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "collective/critical_path_executor.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"

namespace ccsim::calibrate {
namespace {

/// An MPI eager limit counts the PML's match header (Open MPI's ob1: 14-24 bytes): a payload
/// of exactly the limit already goes by rendezvous. The breakpoint sits this much below it.
constexpr std::uint64_t kProtocolHeaderBytes = 64;

/// Message-size segments: segment k holds messages of at least breaks[k - 1] bytes.
int segment_of(std::uint64_t bytes, const std::vector<std::uint64_t>& breaks) {
  int k = 0;
  while (k < static_cast<int>(breaks.size()) && bytes >= breaks[static_cast<std::size_t>(k)]) ++k;
  return k;
}

/// The parameter vector of a fit with P step segments: latency_0..P-1, seconds per
/// byte_0..P-1, reduction seconds per byte, per-message overhead (send + receive). A ramp has
/// no parameters of its own: it starts from the values of the step before it (the cost is
/// continuous there) and ends at the values of the step after it.
class Layout {
 public:
  /// All steps, at `breaks`.
  explicit Layout(std::vector<std::uint64_t> breaks = {}) : breaks_(std::move(breaks)) { index(); }
  /// Segment `segment` becomes a ramp to the next one's values (topology::CostSegment::ramp).
  void set_ramp(int segment) {
    ramps_.at(static_cast<std::size_t>(segment)) = 1;
    index();
  }

  const std::vector<std::uint64_t>& breaks() const { return breaks_; }
  bool ramp(int segment) const {
    return segment >= 0 && static_cast<std::size_t>(segment) < ramps_.size() &&
           ramps_[static_cast<std::size_t>(segment)] != 0;
  }
  int segments() const { return static_cast<int>(breaks_.size()) + 1; }
  /// The parameter pair whose values hold at the start of `segment` (a table: every message
  /// cost of a fit asks).
  int pair_of(int segment) const { return pair_of_[static_cast<std::size_t>(segment)]; }
  int pairs() const { return pair_of_.back() + 1; }
  int size() const { return 2 * pairs() + 2; }
  int gamma() const { return 2 * pairs(); }
  int overhead() const { return 2 * pairs() + 1; }
  /// The first segment of a parameter pair, counted from 1.
  int segment_of_pair(int pair) const {
    for (int s = 0; s < segments(); ++s) {
      if (pair_of(s) == pair && !ramp(s)) return s + 1;
    }
    return pair + 1;
  }
  std::string name(int j) const {
    const int p = pairs();
    if (j < p) return fmt::format("latency of segment {}", segment_of_pair(j));
    if (j < 2 * p) return fmt::format("bandwidth of segment {}", segment_of_pair(j - p));
    return j == gamma() ? "reduction cost per byte" : "per-message overhead";
  }

 private:
  void index() {
    ramps_.resize(static_cast<std::size_t>(segments()), 0);
    pair_of_.assign(static_cast<std::size_t>(segments()), 0);
    for (int s = 1; s < segments(); ++s) {
      pair_of_[static_cast<std::size_t>(s)] = pair_of_[static_cast<std::size_t>(s - 1)] + (ramp(s) ? 0 : 1);
    }
  }

  std::vector<std::uint64_t> breaks_;
  std::vector<char> ramps_;   ///< per segment: 1 for a ramp to the next one's values
  std::vector<int> pair_of_;  ///< per segment: pair_of()
};

/// The cost of one message of `n` bytes at parameter vector `theta`.
double message_cost(std::uint64_t n, const Layout& layout, const std::vector<double>& theta) {
  const auto p = static_cast<std::size_t>(layout.pairs());
  const int seg = segment_of(n, layout.breaks());
  const auto s = static_cast<std::size_t>(seg);
  const auto bytes = static_cast<double>(n);
  const auto own = static_cast<std::size_t>(layout.pair_of(seg));
  double cost = theta[own] + bytes * theta[p + own];
  if (layout.ramp(seg)) {
    const auto next = static_cast<std::size_t>(layout.pair_of(seg + 1));
    const double w = topology::ramp_weight(bytes, static_cast<double>(layout.breaks()[s - 1]),
                                           static_cast<double>(layout.breaks()[s]));
    cost = (1 - w) * cost + w * (theta[next] + bytes * theta[p + next]);
  }
  return cost + theta[static_cast<std::size_t>(layout.overhead())];
}

/// Critical path of a schedule at parameter vector `theta`; `largest` gets the largest message.
double evaluate(const collective::Schedule& schedule, const Layout& layout, const std::vector<double>& theta,
                const compress::CompressorCost& compressor, std::uint64_t* largest = nullptr) {
  collective::CostParams params;
  params.gamma_s_per_byte = theta[static_cast<std::size_t>(layout.gamma())];
  params.compressor = compressor;
  const collective::MessageCost message = [&](int, int, std::uint64_t n) {
    if (largest) *largest = std::max(*largest, n);
    return message_cost(n, layout, theta);
  };
  return collective::critical_path_by_message_s(schedule, params, message);
}

/// The design of a fit: per point the constant (all parameters 0) and the coefficient of
/// each parameter (the critical path at a unit parameter vector, less the constant).
struct Design {
  std::vector<double> constant;
  std::vector<std::vector<double>> columns;  // [parameter][point]
};

/// Designs of the points' schedules at any layout. The search tries hundreds of layouts, and
/// a schedule's critical path depends on the layout only through the cost of each of its
/// message sizes (and the reduction cost): each distinct set of those is run once.
class DesignBuilder {
 public:
  explicit DesignBuilder(const std::vector<std::unique_ptr<collective::Schedule>>& schedules) : schedules_(schedules) {
    for (const auto& schedule : schedules) {
      std::vector<std::uint64_t> sizes;
      const collective::MessageCost record = [&](int, int, std::uint64_t n) {
        sizes.push_back(n);
        return 0.0;
      };
      collective::critical_path_by_message_s(*schedule, {}, record);
      std::sort(sizes.begin(), sizes.end());
      sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
      sizes_.push_back(std::move(sizes));
    }
  }

  /// Schedule i's distinct message sizes, ascending.
  const std::vector<std::uint64_t>& sizes(std::size_t i) const { return sizes_[i]; }

  Design design(const Layout& layout) {
    Design d;
    std::vector<double> theta(static_cast<std::size_t>(layout.size()), 0.0);
    for (std::size_t i = 0; i < schedules_.size(); ++i) d.constant.push_back(critical_path(i, layout, theta));
    for (int j = 0; j < layout.size(); ++j) {
      theta.assign(theta.size(), 0.0);
      theta[static_cast<std::size_t>(j)] = 1.0;
      std::vector<double> column;
      for (std::size_t i = 0; i < schedules_.size(); ++i)
        column.push_back(critical_path(i, layout, theta) - d.constant[i]);
      d.columns.push_back(std::move(column));
    }
    return d;
  }

 private:
  /// evaluate(schedule i, layout, theta), run once per distinct key.
  double critical_path(std::size_t i, const Layout& layout, const std::vector<double>& theta) {
    key_.assign({static_cast<double>(i), theta[static_cast<std::size_t>(layout.gamma())]});
    for (std::uint64_t n : sizes_[i]) key_.push_back(message_cost(n, layout, theta));
    if (auto it = memo_.find(key_); it != memo_.end()) return it->second;  // no allocation on a hit
    const double s = evaluate(*schedules_[i], layout, theta, {});
    memo_.emplace(key_, s);
    return s;
  }

  const std::vector<std::unique_ptr<collective::Schedule>>& schedules_;
  std::vector<std::vector<std::uint64_t>> sizes_;  ///< per schedule: its distinct message sizes
  /// Hashed: the fits look keys up many thousands of times, and ordered keys of a dozen doubles
  /// cost most of the fit (perf, in the sanitizer tree).
  struct KeyHash {
    std::size_t operator()(const std::vector<double>& key) const {
      std::size_t h = key.size();
      for (double x : key) h ^= std::hash<double>{}(x) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      return h;
    }
  };
  std::unordered_map<std::vector<double>, double, KeyHash> memo_;
  std::vector<double> key_;  ///< the key being looked up, kept for its capacity
};

/// Weighted least squares over the `free` parameters (others 0): minimises
/// sum ((constant + X theta - y) / y)^2 by modified Gram-Schmidt QR on normalised columns.
/// A column that is (numerically) a combination of earlier ones is dropped from `free` and
/// listed in `dependent`.
std::vector<double> solve(const Design& d, const std::vector<std::size_t>& rows, const std::vector<double>& y,
                          std::vector<bool>& free, std::vector<int>& dependent) {
  const std::size_t n = rows.size();
  std::vector<std::vector<double>> q;
  std::vector<int> kept;
  std::vector<double> scale;
  std::vector<std::vector<double>> r;  // r[i][j], upper triangular over kept columns
  for (std::size_t j = 0; j < d.columns.size(); ++j) {
    if (!free[j]) continue;
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = d.columns[j][rows[i]] / y[i];
    double norm = 0;
    for (double x : v) norm += x * x;
    norm = std::sqrt(norm);
    if (norm == 0) {
      free[j] = false;
      dependent.push_back(static_cast<int>(j));
      continue;
    }
    for (double& x : v) x /= norm;
    std::vector<double> rj(kept.size() + 1, 0.0);
    for (std::size_t a = 0; a < q.size(); ++a) {
      double dot = 0;
      for (std::size_t i = 0; i < n; ++i) dot += q[a][i] * v[i];
      rj[a] = dot;
      for (std::size_t i = 0; i < n; ++i) v[i] -= dot * q[a][i];
    }
    double rest = 0;
    for (double x : v) rest += x * x;
    rest = std::sqrt(rest);
    if (rest < 1e-9) {
      free[j] = false;
      dependent.push_back(static_cast<int>(j));
      continue;
    }
    for (double& x : v) x /= rest;
    rj[kept.size()] = rest;
    q.push_back(std::move(v));
    r.push_back(std::move(rj));
    kept.push_back(static_cast<int>(j));
    scale.push_back(norm);
  }
  std::vector<double> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = (y[i] - d.constant[rows[i]]) / y[i];
  std::vector<double> qtb(kept.size());
  for (std::size_t a = 0; a < kept.size(); ++a) {
    double dot = 0;
    for (std::size_t i = 0; i < n; ++i) dot += q[a][i] * b[i];
    qtb[a] = dot;
  }
  std::vector<double> z(kept.size());
  for (std::size_t a = kept.size(); a-- > 0;) {
    double s = qtb[a];
    for (std::size_t c = a + 1; c < kept.size(); ++c) s -= r[c][a] * z[c];
    z[a] = s / r[a][a];
  }
  std::vector<double> theta(d.columns.size(), 0.0);
  for (std::size_t a = 0; a < kept.size(); ++a) theta[static_cast<std::size_t>(kept[a])] = z[a] / scale[a];
  return theta;
}

/// A fit at one segment layout.
struct Candidate {
  Layout layout;
  std::vector<double> theta;
  std::vector<int> dependent;        ///< parameters the series cannot tell from others: fixed at 0
  std::vector<int> constrained;      ///< parameters fixed at 0 because the fit made them negative
  std::vector<int> bandwidth_bound;  ///< fixed at 0 because the fit made a bandwidth non-positive
  int free = 0;
  double ssr = 0;
  double criterion = 0;
};

/// The prediction of the design at parameter vector `theta` for point `row`.
double predicted_at(const Design& d, std::size_t row, const std::vector<double>& theta) {
  double predicted = d.constant[row];
  for (std::size_t j = 0; j < d.columns.size(); ++j) predicted += d.columns[j][row] * theta[j];
  return predicted;
}

/// Fits at one layout on the points `rows` (of the design); nullopt with `why` when a
/// bandwidth comes out non-positive. Fills theta, the fixed parameters and ssr.
std::optional<Candidate> fit_rows(const Design& d, const std::vector<std::size_t>& rows, const std::vector<double>& y,
                                  const Layout& layout, std::string& why) {
  Candidate c;
  c.layout = layout;
  std::vector<bool> free(static_cast<std::size_t>(layout.size()), true);
  const int k = layout.pairs();
  for (;;) {
    c.theta = solve(d, rows, y, free, c.dependent);
    bool retry = false;
    for (int s = 0; s < k && !retry; ++s) {
      if (c.theta[static_cast<std::size_t>(k + s)] > 0) continue;
      // A reduction cost per byte competes with the bandwidths (both scale with the bytes):
      // where the series can tell them apart, noise can drive a bandwidth non-positive and
      // the reduction cost up. Fix the reduction cost at 0 (folded into the bandwidths) first.
      const auto gamma = static_cast<std::size_t>(layout.gamma());
      if (free[gamma]) {
        free[gamma] = false;
        c.bandwidth_bound.push_back(layout.gamma());
        retry = true;
      }
    }
    if (retry) continue;
    for (int s = 0; s < k; ++s) {
      if (c.theta[static_cast<std::size_t>(k + s)] <= 0) {
        why = fmt::format("{} comes out {} (seconds per byte {:.6g})", layout.name(k + s),
                          free[static_cast<std::size_t>(k + s)] ? "non-positive" : "undetermined",
                          c.theta[static_cast<std::size_t>(k + s)]);
        return std::nullopt;
      }
    }
    int worst = -1;
    for (int j = 0; j < layout.size(); ++j) {
      if (j >= k && j < 2 * k) continue;
      if (c.theta[static_cast<std::size_t>(j)] < 0 &&
          (worst < 0 || c.theta[static_cast<std::size_t>(j)] < c.theta[static_cast<std::size_t>(worst)])) {
        worst = j;
      }
    }
    if (worst < 0) break;
    free[static_cast<std::size_t>(worst)] = false;
    c.constrained.push_back(worst);
  }
  c.free = static_cast<int>(std::count(free.begin(), free.end(), true));
  // What a model file may hold (topology::kMaxModel...): a fit beyond it is no model either.
  for (int s = 0; s < k; ++s) {
    const double latency = c.theta[static_cast<std::size_t>(s)];
    const double bandwidth = 1 / c.theta[static_cast<std::size_t>(k + s)];
    if (latency > topology::kMaxModelTime_s) {
      why = fmt::format("{} comes out {:.6g} s, above the {:g} s a model may hold", layout.name(s), latency,
                        topology::kMaxModelTime_s);
      return std::nullopt;
    }
    if (bandwidth > topology::kMaxModelBandwidth_Bps || bandwidth < topology::kMinModelBandwidth_Bps) {
      why = fmt::format("{} comes out {:.6g} B/s, outside the {:g} to {:g} B/s a model may hold{}", layout.name(k + s),
                        bandwidth, topology::kMinModelBandwidth_Bps, topology::kMaxModelBandwidth_Bps,
                        bandwidth > topology::kMaxModelBandwidth_Bps
                            ? " (the measured times hardly grow with the bytes: a series of latency-bound sizes "
                              "cannot tell a bandwidth)"
                            : "");
      return std::nullopt;
    }
  }
  if (c.theta[static_cast<std::size_t>(layout.overhead())] / 2 > topology::kMaxModelTime_s) {
    why = fmt::format("the per-message overhead comes out {:.6g} s, above the {:g} s a model may hold",
                      c.theta[static_cast<std::size_t>(layout.overhead())] / 2, topology::kMaxModelTime_s);
    return std::nullopt;
  }
  if (c.theta[static_cast<std::size_t>(layout.gamma())] > topology::kMaxModelReduce_s_per_byte) {
    why = fmt::format("the reduction cost comes out {:.6g} s per byte, above the {:g} a model may hold",
                      c.theta[static_cast<std::size_t>(layout.gamma())], topology::kMaxModelReduce_s_per_byte);
    return std::nullopt;
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double r = predicted_at(d, rows[i], c.theta) / y[i] - 1;
    c.ssr += r * r;
  }
  return c;
}

/// Fits at one layout on the points `rows` and scores it by BIC of the relative residuals.
std::optional<Candidate> fit_layout(DesignBuilder& designs, const std::vector<std::size_t>& rows,
                                    const std::vector<double>& y, const Layout& layout, std::string& why) {
  std::optional<Candidate> c = fit_rows(designs.design(layout), rows, y, layout, why);
  if (!c) return c;
  const double n = static_cast<double>(rows.size());
  c->criterion = n * std::log(std::max(c->ssr, 1e-300) / n) + c->free * std::log(n);
  return c;
}

void combinations(const std::vector<std::uint64_t>& candidates, std::size_t from, int left,
                  std::vector<std::uint64_t>& chosen, std::vector<std::vector<std::uint64_t>>& out) {
  if (left == 0) {
    out.push_back(chosen);
    return;
  }
  for (std::size_t i = from; i < candidates.size(); ++i) {
    chosen.push_back(candidates[i]);
    combinations(candidates, i + 1, left - 1, chosen, out);
    chosen.pop_back();
  }
}

std::string series_name(const SeriesChoice& choice, const std::string& file) {
  return fmt::format("{}/{} in {}", choice.algorithm, choice.transport, file);
}

}  // namespace

/// Refuses a series the fit cannot describe: mixed group sizes, one rank, a compressed series.
void check_fittable(const MeasurementFile& file, const std::vector<SeriesPoint>& points, const std::string& name) {
  if (points.front().group_size != points.back().group_size) {
    throw InputError(file.file, points.back().line, points.back().field,
                     fmt::format("series {} mixes group sizes {} and {}; fit one group size", name,
                                 points.front().group_size, points.back().group_size));
  }
  if (points.front().group_size < 2) {
    throw InputError(file.file, points.front().line, points.front().field,
                     fmt::format("series {} ran on 1 rank: its all_reduce sends no message, so its times tell no "
                                 "latency or bandwidth; fit a series of 2 or more ranks",
                                 name));
  }
  if (points.front().codec) {
    throw InputError(file.file, points.front().line, points.front().field + ".codec",
                     fmt::format("series {} is compressed ({}); fit the network on a plain series and predict "
                                 "compressed ones with validate --compress",
                                 name, *points.front().codec));
  }
}

/// Where segments may break: the largest message of each fitted point, the candidate
/// breakpoints between them, and the MPI library's eager limits among those.
struct Breakpoints {
  std::vector<std::uint64_t> largest;  ///< per fitted row, its largest message
  std::vector<std::uint64_t> candidates;
  std::vector<std::pair<std::uint64_t, std::string>> protocol;  ///< eager limits (less the header), by name
  bool is_protocol(std::uint64_t b) const {
    return std::any_of(protocol.begin(), protocol.end(), [&](const auto& p) { return p.first == b; });
  }
};

Breakpoints candidate_breakpoints(const MeasurementFile& file,
                                  const std::vector<std::unique_ptr<collective::Schedule>>& schedules,
                                  const std::vector<std::size_t>& rows) {
  Breakpoints out;
  std::vector<std::uint64_t>& largest = out.largest;
  std::vector<std::uint64_t>& candidates = out.candidates;
  std::vector<std::pair<std::uint64_t, std::string>>& protocol = out.protocol;
  // Candidate breakpoints: between the largest messages of consecutive fitted points.
  {
    Layout one;
    std::vector<double> zero(static_cast<std::size_t>(one.size()), 0.0);
    for (std::size_t i : rows) {
      std::uint64_t m = 0;
      evaluate(*schedules[i], one, zero, {}, &m);
      largest.push_back(m);
    }
  }
  std::vector<std::uint64_t> distinct = largest;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  // The MPI library's eager limits, where measure recorded them: a message above one goes by
  // rendezvous (a handshake first), a step in cost that no smooth curve between the sizes
  // around it predicts. Such a breakpoint may bound a segment of 2 fitted points.
  for (const auto& [limit_name, limit] : file.protocol_limits) {
    if (limit_name.rfind("btl_self_", 0) == 0 || limit <= kProtocolHeaderBytes) continue;  // a rank to itself
    const std::uint64_t at = limit - kProtocolHeaderBytes;
    if (distinct.empty() || at <= distinct.front() || at > distinct.back()) continue;
    if (std::find_if(protocol.begin(), protocol.end(), [&](const auto& p) { return p.first == at; }) != protocol.end())
      continue;
    protocol.emplace_back(at, limit_name);
    candidates.push_back(at);
  }
  // Elsewhere, a breakpoint halfway (in log size) between consecutive fitted messages. Between
  // two that an eager limit separates, the limit is the breakpoint: a guess beside it would fit
  // the fitted points as well and misplace every size between the guess and the limit.
  for (std::size_t i = 1; i < distinct.size(); ++i) {
    const bool known = std::any_of(protocol.begin(), protocol.end(),
                                   [&](const auto& p) { return p.first > distinct[i - 1] && p.first <= distinct[i]; });
    if (known) continue;
    candidates.push_back(static_cast<std::uint64_t>(
        std::llround(std::sqrt(static_cast<double>(distinct[i - 1]) * static_cast<double>(distinct[i])))));
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  return out;
}

/// The best layout by BIC among 1..max_segments segments on the candidate breakpoints, each
/// inner segment a step or a ramp; `tried` counts the layouts fitted, `why` says why the last
/// one failed. nullopt when none could be fitted.
std::optional<Candidate> search_layouts(DesignBuilder& designs, const std::vector<std::size_t>& rows,
                                        const std::vector<double>& y, const Breakpoints& bp, int max_segments,
                                        int& tried, std::string& why) {
  const std::vector<std::uint64_t>& largest = bp.largest;
  const std::vector<std::uint64_t>& candidates = bp.candidates;
  const auto is_protocol = [&](std::uint64_t b) { return bp.is_protocol(b); };
  std::optional<Candidate> best;
  for (int k = 1; k <= max_segments; ++k) {
    std::vector<std::vector<std::uint64_t>> layouts;
    std::vector<std::uint64_t> chosen;
    combinations(candidates, 0, k - 1, chosen, layouts);
    for (const auto& breaks : layouts) {
      std::vector<int> count(static_cast<std::size_t>(k), 0);
      for (std::uint64_t m : largest) ++count[static_cast<std::size_t>(segment_of(m, breaks))];
      // Each inner segment (from a breakpoint, with a next one) is a step or a ramp to the next;
      // never a ramp into an eager limit, which is a step by nature.
      std::vector<int> can_ramp;
      for (int seg = 1; seg + 1 < k; ++seg) {
        if (!is_protocol(breaks[static_cast<std::size_t>(seg)])) can_ramp.push_back(seg);
      }
      for (unsigned mask = 0; mask < (1u << can_ramp.size()); ++mask) {
        Layout layout(breaks);
        bool adjacent = false;  // two ramps in a row: the first would go nowhere
        for (std::size_t b = 0; b < can_ramp.size(); ++b) {
          if (((mask >> b) & 1u) == 0) continue;
          const int seg = can_ramp[b];
          adjacent = adjacent || layout.ramp(seg - 1);
          layout.set_ramp(seg);
        }
        if (adjacent) continue;
        // Fitted points per segment: 3 for a step, 2 beside an eager limit or at the end of a
        // ramp, 1 on a ramp (whose ends are also the values of the segments around it).
        bool enough = true;
        for (int seg = 0; seg < k; ++seg) {
          const bool by_protocol = (seg > 0 && is_protocol(breaks[static_cast<std::size_t>(seg - 1)])) ||
                                   (seg + 1 < k && is_protocol(breaks[static_cast<std::size_t>(seg)]));
          const int needed = layout.ramp(seg) ? 1 : by_protocol || layout.ramp(seg - 1) ? 2 : 3;
          if (count[static_cast<std::size_t>(seg)] < needed) enough = false;
        }
        if (!enough) continue;
        // More points than parameters.
        if (static_cast<int>(rows.size()) <= 2 * layout.pairs()) continue;
        ++tried;
        std::optional<Candidate> c = fit_layout(designs, rows, y, layout, why);
        if (c && (!best || c->criterion < best->criterion)) best = std::move(c);
      }
    }
  }
  return best;
}

/// The fit's notes: the layout chosen and among how many, the eager limits tried, the
/// parameters fixed, and what the run's machine did to its times.
void add_notes(NetworkFit& fit, const Candidate& best, const Breakpoints& bp, const MeasurementFile& file, int tried,
               int max_segments, double sharing) {
  const int k = best.layout.segments();
  fit.notes.push_back(fmt::format(
      "{} segment{} chosen by BIC of the relative residuals among {} layouts (1..{} "
      "segments, breakpoints between fitted sizes, fitted points: 3 per step, 2 after a ramp or beside an eager limit, 1 per ramp; inner segments "
      "a step or a ramp to the next)",
      k, k == 1 ? "" : "s", tried, max_segments));
  if (!bp.protocol.empty()) {
    std::vector<std::string> limits;
    for (const auto& [at, limit_name] : bp.protocol) {
      const bool used =
          std::find(best.layout.breaks().begin(), best.layout.breaks().end(), at) != best.layout.breaks().end();
      limits.push_back(
          fmt::format("{} {} B ({})", limit_name, at + kProtocolHeaderBytes, used ? "a breakpoint" : "not chosen"));
    }
    fit.notes.push_back(
        fmt::format("breakpoints tried also at the MPI library's eager limits recorded by ccsim measure, "
                    "less {} B for the protocol header: {}",
                    kProtocolHeaderBytes, fmt::join(limits, ", ")));
  }
  for (int j : best.dependent) {
    fit.notes.push_back(
        fmt::format("{} cannot be told apart from the other parameters in this series: fixed at 0 "
                    "(absorbed by the {})",
                    best.layout.name(j), j == best.layout.gamma() ? "bandwidths" : "latencies"));
  }
  for (int j : best.bandwidth_bound) {
    fit.notes.push_back(
        fmt::format("constrained fit: {} fixed at 0 (with it free, a bandwidth came out non-positive; "
                    "absorbed by the bandwidths)",
                    best.layout.name(j)));
  }
  for (int j : best.constrained) {
    fit.notes.push_back(
        fmt::format("constrained fit: {} fixed at 0 (the unconstrained fit made it negative)", best.layout.name(j)));
  }
  if (sharing > 1) {
    fit.notes.push_back(
        fmt::format("{} processes on {} cores per node: each process had 1/{:g} of a core, so the model is "
                    "fitted to the times divided by {:g} and its predictions for this run are multiplied "
                    "by {:g} (shared memory and loopback TCP move every byte with a CPU)",
                    file.processes, file.cores_per_node, sharing, sharing, sharing));
  }
  if (const std::string affinity = affinity_summary(file); !affinity.empty()) {
    fit.notes.push_back(
        fmt::format("CPU affinity of the measured processes: {} (processes bound to cores and processes "
                    "the OS moves among them time a series differently)",
                    affinity));
  }
  if (!file.emulated_link.empty()) {
    fit.notes.push_back(
        fmt::format("measured through the link scripts/slowlink.sh emulated: {} (the model describes "
                    "that link)",
                    file.emulated_link));
  }
  if (file.link_Bps > 0) {
    fit.tier.link_Bps = file.link_Bps;
    fit.notes.push_back(
        fmt::format("each process had a link of {} to itself (per-port links): processes that share a "
                    "core share its CPU but not that link (link_bandwidth_Bps)",
                    format_rate(file.link_Bps)));
  }
}

/// The tier of the fitted parameters: overheads split between sender and receiver, one
/// segment per layout segment.
void tier_of(const Candidate& best, topology::TierModel& tier) {
  const int pairs = best.layout.pairs();
  const double overhead = best.theta[static_cast<std::size_t>(best.layout.overhead())];
  tier.send_overhead_s = overhead / 2;
  tier.recv_overhead_s = overhead / 2;
  for (int s = 0; s < best.layout.segments(); ++s) {
    topology::CostSegment seg;
    seg.min_bytes = s == 0 ? 0 : best.layout.breaks()[static_cast<std::size_t>(s - 1)];
    const int pair = best.layout.pair_of(s);
    seg.latency_s = best.theta[static_cast<std::size_t>(pair)];
    seg.bandwidth_Bps = 1.0 / best.theta[static_cast<std::size_t>(pairs + pair)];
    seg.ramp = best.layout.ramp(s);
    tier.segments.push_back(seg);
  }
}

NetworkFit fit_network(const MeasurementFile& file, const SeriesChoice& choice, FitMode mode, int max_segments) {
  std::vector<SeriesPoint> points = select_series(file, choice);
  const std::string name = series_name(choice, file.file);
  check_fittable(file, points, name);
  // The model describes a process with a core of its own; the run's times are that much longer.
  const double sharing = core_sharing(file);
  std::vector<std::unique_ptr<collective::Schedule>> schedules;
  std::vector<std::size_t> rows;
  std::vector<double> y;
  for (std::size_t i = 0; i < points.size(); ++i) {
    schedules.push_back(schedule_for(points[i], choice));
    if (mode == FitMode::kAll || i % 2 == 0) {
      rows.push_back(i);
      y.push_back(points[i].median_s / sharing);
    }
  }
  if (rows.size() < 3) {
    throw InputError(file.file, points.front().line, points.front().field,
                     fmt::format("series {} has {} points to fit; at least 3 are needed", name, rows.size()));
  }

  DesignBuilder designs(schedules);
  const Breakpoints bp = candidate_breakpoints(file, schedules, rows);
  std::string why;
  int tried = 0;
  const std::optional<Candidate> best = search_layouts(designs, rows, y, bp, max_segments, tried, why);
  if (!best) {
    throw InputError(
        file.file, points.front().line, points.front().field,
        fmt::format("series {}: no physically possible fit: {}", name, why.empty() ? "too few points" : why));
  }

  // The critical path is a maximum over paths: check that it is linear at the fitted point.
  Design d = designs.design(best->layout);
  NetworkFit fit;
  for (std::size_t i = 0; i < points.size(); ++i) {
    double linear = d.constant[i];
    for (std::size_t j = 0; j < d.columns.size(); ++j) linear += d.columns[j][i] * best->theta[j];
    const double direct = evaluate(*schedules[i], best->layout, best->theta, {});
    if (std::abs(direct - linear) > 1e-9 * std::abs(direct)) {
      throw InputError(file.file, points[i].line, points[i].field,
                       fmt::format("series {}: the critical path of schedule {} is not linear in the parameters "
                                   "({:.9g} s against {:.9g} s): the fit does not apply",
                                   name, schedules[i]->name(), direct, linear));
    }
    PointFit p = point_fit(points[i]);
    p.predicted_s = direct * sharing;
    p.fitted = mode == FitMode::kAll || i % 2 == 0;
    if (p.fitted) fit.fitted_on.push_back(p.bytes);
    fit.points.push_back(p);
  }
  fit.schedule = std::string(schedules.back()->name());
  for (std::size_t i = 0; i + 1 < schedules.size(); ++i) {
    if (schedules[i]->name() != schedules.back()->name()) {
      fit.schedule = "auto (" + std::string(schedules.front()->name()) + " .. " + fit.schedule + ")";
      break;
    }
  }
  tier_of(*best, fit.tier);
  // The smallest message of the fitted points: below it the model has no data (TierModel::floor_bytes).
  std::uint64_t smallest = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!fit.points[i].fitted) continue;
    const auto& sizes = designs.sizes(i);
    const auto first = std::upper_bound(sizes.begin(), sizes.end(), std::uint64_t{0});  // the smallest of more than 0
    if (first != sizes.end()) smallest = std::min(smallest, *first);
  }
  if (smallest != std::numeric_limits<std::uint64_t>::max()) fit.tier.floor_bytes = smallest;
  fit.reduce_s_per_byte = best->theta[static_cast<std::size_t>(best->layout.gamma())];
  add_notes(fit, *best, bp, file, tried, max_segments, sharing);
  fit.fitted = summarize(fit.points, true);
  fit.held_out = summarize(fit.points, false);
  return fit;
}

}  // namespace ccsim::calibrate
