#include "collective/algorithm_choice.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "collective/error_model.hpp"
#include "collective/hierarchical_all_reduce.hpp"
#include "core/index.hpp"

namespace ccsim::collective {
namespace {

/// The most ranks of one node that send to another node in `schedule` (the flows that share
/// the node's NICs when every rank runs the same step).
int off_node_senders(const Schedule& schedule, const std::vector<int>& node_of_rank) {
  std::unordered_map<int, int> senders;  // node -> ranks of it that send off it
  int most = 0;
  for (int r = 0; r < schedule.size(); ++r) {
    const int node = at(node_of_rank, r);
    for (int peer : schedule.send_peers(r)) {
      if (at(node_of_rank, peer) != node) {
        most = std::max(most, ++senders[node]);
        break;
      }
    }
  }
  return most;
}

/// What predict() needs to know of the group's node layout.
struct Layout {
  bool known = false;  ///< the node of every rank is known
  bool one_node = false;
  bool hierarchical_fits = false;
};

Layout layout_of(const Request& request) {
  const std::vector<int>& nodes = request.node_of_rank;
  Layout layout;
  layout.known = static_cast<int>(nodes.size()) == request.size;
  const std::size_t distinct = layout.known ? std::set<int>(nodes.begin(), nodes.end()).size() : 0;
  layout.one_node = layout.known && distinct == 1;
  layout.hierarchical_fits = layout.known && HierarchicalAllReduce::layout_error(nodes, request.size).empty() &&
                             distinct >= 2 && static_cast<std::size_t>(request.size) / distinct >= 2;
  return layout;
}

/// The prediction of `schedule`, the algorithm `name` for `request`.
Prediction predict(const Schedule& schedule, std::string_view name, const Request& request, const Layout& layout,
                   const GroupLinks& links) {
  Prediction p;
  p.algorithm = std::string(name);
  CostParams params = cost_params(layout.one_node ? links.intra_alpha_s : links.inter_alpha_s,
                                  layout.one_node ? links.intra_beta_s_per_byte : links.inter_beta_s_per_byte,
                                  links.gamma_s_per_byte, links.compressor);
  params.intra_alpha_s = links.intra_alpha_s;
  params.intra_beta_s_per_byte = links.intra_beta_s_per_byte;
  if (layout.known && !layout.one_node && links.nic_Bps > 0) {
    const int nics = std::max(1, links.nics_per_node);
    p.nic_sharing = (off_node_senders(schedule, request.node_of_rank) + nics - 1) / nics;
    params.beta_s_per_byte = std::max(params.beta_s_per_byte, p.nic_sharing / links.nic_Bps);
  }
  p.time_s = schedule.cost(params);
  return p;
}

}  // namespace

std::vector<Prediction> predict_all_reduce(const Request& request, const GroupLinks& links) {
  const Layout layout = layout_of(request);
  // With a compressor, auto never trades accuracy for time: no algorithm whose result has a
  // worse error bound than the one the compressor's kind calls for (registry.hpp).
  double worst_error = 0;
  if (request.compression != Compression::kNone && request.size > 1) {
    Request kind_default = request;
    kind_default.algorithm = "auto";
    worst_error = all_reduce_error(choose_algorithm(kind_default), request.size).worst;
  }
  std::vector<Prediction> out;
  for (const AlgorithmInfo& info : algorithm_table()) {
    if (info.op != Collective::kAllReduce || !info.accepts(request.compression)) continue;
    if (info.needs_nodes && !layout.hierarchical_fits) continue;
    if (request.compression != Compression::kNone && request.size > 1 &&
        all_reduce_error(info.name, request.size).worst > worst_error) {
      continue;
    }
    Request r = request;
    r.algorithm = std::string(info.name);
    std::unique_ptr<Schedule> schedule;
    try {
      schedule = make_schedule(r);
    } catch (const std::invalid_argument&) {
      continue;  // does not apply to this group or buffer
    }
    out.push_back(predict(*schedule, info.name, request, layout, links));
  }
  if (out.empty()) throw std::logic_error("predict_all_reduce: no all_reduce algorithm applies");
  return out;
}

Prediction predict_algorithm(const Request& request, const GroupLinks& links) {
  const std::string name = choose_algorithm(request);
  return predict(*make_schedule(request), name, request, layout_of(request), links);
}

const Prediction& fastest(const std::vector<Prediction>& predictions) {
  if (predictions.empty()) throw std::logic_error("fastest: no candidate");
  const Prediction* best = &predictions.front();
  for (const Prediction& p : predictions) {
    if (p.time_s < best->time_s) best = &p;
  }
  return *best;
}

std::string describe(const std::vector<Prediction>& predictions, std::string_view chosen) {
  std::vector<const Prediction*> sorted;
  for (const Prediction& p : predictions) sorted.push_back(&p);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Prediction* a, const Prediction* b) { return a->time_s < b->time_s; });
  std::string out;
  for (const Prediction* p : sorted) {
    out += fmt::format("{}{} {:.3f} ms{}{}", out.empty() ? "" : ", ", p->algorithm, p->time_s * 1e3,
                       p->nic_sharing > 1 ? fmt::format(" (NIC shared by {})", p->nic_sharing) : std::string(),
                       p->algorithm == chosen ? " (chosen)" : "");
  }
  return out;
}

}  // namespace ccsim::collective
