#include "study/collective_study.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "compress/compress_spec.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "engine/collective_plan.hpp"
#include "engine/network_factors.hpp"
#include "study/sweep.hpp"
#include "study/what_if.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::study {

CollectiveStudy study_collective(const topology::Platform& platform, const std::string& compress, int ranks,
                                 std::uint64_t bytes, DType dtype, const DataLookup& lookup) {
  const topology::Network& net = platform.network;
  if (ranks > net.accelerator_count()) {
    throw InputError("command line", 0, "--ranks",
                     fmt::format("platform \"{}\" has {} accelerators, fewer than {} ranks", platform.name,
                                 net.accelerator_count(), ranks));
  }
  CollectiveStudy out;
  out.ranks = ranks;
  out.bytes = bytes;
  out.dtype = dtype;
  out.nodes = net.node_of(ranks - 1) + 1;
  collective::Request request;
  request.size = ranks;
  request.element_bytes = dtype_bytes(dtype);
  request.count = bytes / static_cast<std::uint64_t>(request.element_bytes);
  std::vector<int> accelerators;
  for (int r = 0; r < ranks; ++r) {
    accelerators.push_back(r);
    request.node_of_rank.push_back(net.node_of(r));
  }
  out.links = engine::group_links(net, accelerators);
  if (auto model = lookup.network_model(platform)) {
    out.links = engine::calibrated_links(out.links, engine::NetworkFactors(model),
                                         static_cast<double>(bytes) / static_cast<double>(ranks));
    out.network_model = model->name;
    if (out.nodes == 1) {  // inside one node, the inter figures are the intra ones (group_links)
      out.links.inter_alpha_s = out.links.intra_alpha_s;
      out.links.inter_beta_s_per_byte = out.links.intra_beta_s_per_byte;
    }
  }
  if (!compress.empty()) {
    compress::CompressSpec spec = compress::parse_compress_spec(compress);
    compress::CompressorModel model = lookup.compressor(spec);
    out.links.compressor = model.evaluate(spec.query, dtype, engine::target_hardware(platform)).cost;
    request.compression = collective::compression_of(model);
  }
  out.predictions = collective::predict_all_reduce(request, out.links);
  return out;
}

CollectivePlatform study_collective(const ReplaySettings& settings, int ranks, std::uint64_t bytes, DType dtype,
                                    const DataLookup& lookup) {
  const ReplaySettings given = with_settings(settings);
  CollectivePlatform out{lookup.platform(given.platform, parse_what_if(given.settings).platform), {}};
  out.study = study_collective(out.platform, given.compress, ranks, bytes, dtype, lookup);
  return out;
}

std::string describe_model(const CollectiveStudy& study) {
  std::string out = "closed form of each schedule; no contention except NICs shared by the ranks of a node";
  if (!study.network_model.empty()) {
    out += fmt::format("; links of the platform's calibrated network model \"{}\" (its figures for {} messages)",
                       study.network_model, format_bytes(static_cast<double>(study.bytes) / study.ranks));
  }
  return out;
}

void check_collective_bytes(std::uint64_t bytes, const std::string& text, DType dtype, const std::string& file,
                            int line, const std::string& field) {
  if (bytes < static_cast<std::uint64_t>(dtype_bytes(dtype)) || bytes > trace::kMaxBytes) {
    throw InputError(file, line, field,
                     fmt::format("expected {} to {} bytes (one {} element to 1 PiB), got \"{}\"", dtype_bytes(dtype),
                                 trace::kMaxBytes, dtype_name(dtype), text));
  }
  if (bytes % static_cast<std::uint64_t>(dtype_bytes(dtype)) != 0) {
    throw InputError(file, line, field,
                     fmt::format("expected a whole number of {} elements ({} bytes each), got \"{}\"",
                                 dtype_name(dtype), dtype_bytes(dtype), text));
  }
}

CollectiveSize parse_collective_size(int ranks, const std::string& dtype, const std::string& bytes) {
  if (ranks < 2 || ranks > kMaxCollectiveRanks) {
    throw InputError("command line", 0, "--ranks",
                     fmt::format("expected 2 to {} ranks, got \"{}\"", kMaxCollectiveRanks, ranks));
  }
  CollectiveSize size;
  size.ranks = ranks;
  const std::optional<DType> type = parse_dtype(dtype);
  if (!type) {
    throw InputError("command line", 0, "--dtype",
                     fmt::format("expected one of {}, got \"{}\"", dtype_choices(), dtype));
  }
  size.dtype = *type;
  size.bytes = parse_bytes_or_throw(bytes, "command line", "--bytes");
  check_collective_bytes(size.bytes, bytes, size.dtype, "command line", 0, "--bytes");
  return size;
}

double all_reduce_bus_bandwidth_Bps(std::uint64_t bytes, double time_s, int ranks) {
  const double p = ranks;
  return static_cast<double>(bytes) / time_s * 2 * (p - 1) / p;
}

std::string AutoChoice::line() const {
  std::string text =
      fmt::format("auto chooses {}: the lowest predicted time, {:.3f} ms", chosen->algorithm, chosen->time_s * 1e3);
  if (next == nullptr) return text + " (the only algorithm that applies)";
  return text + fmt::format("; {:.3f}x faster than {} ({:.3f} ms), the next best", next->time_s / chosen->time_s,
                            next->algorithm, next->time_s * 1e3);
}

AutoChoice auto_choice(const std::vector<collective::Prediction>& predictions) {
  AutoChoice c;
  c.chosen = &collective::fastest(predictions);
  for (const collective::Prediction& p : predictions) {
    if (&p != c.chosen && (c.next == nullptr || p.time_s < c.next->time_s)) c.next = &p;
  }
  return c;
}

std::vector<PairedPrediction> pair_predictions(const CollectiveStudy& baseline, const CollectiveStudy* what_if) {
  std::vector<PairedPrediction> rows;
  const CollectiveStudy& shown = what_if != nullptr ? *what_if : baseline;
  for (const collective::Prediction& pr : shown.predictions) {
    PairedPrediction row{pr.algorithm, what_if != nullptr ? nullptr : &pr, what_if != nullptr ? &pr : nullptr};
    if (what_if != nullptr) {
      for (const collective::Prediction& b : baseline.predictions) {
        if (b.algorithm == pr.algorithm) row.baseline = &b;
      }
    }
    rows.push_back(row);
  }
  if (what_if != nullptr) {
    for (const collective::Prediction& b : baseline.predictions) {
      const bool paired =
          std::any_of(rows.begin(), rows.end(), [&](const PairedPrediction& r) { return r.algorithm == b.algorithm; });
      if (!paired) rows.push_back(PairedPrediction{b.algorithm, &b, nullptr});
    }
  }
  return rows;
}

std::vector<std::string> collective_notes(const std::vector<std::string>& settings, int ranks, bool compressed,
                                          const topology::Platform& baseline, const topology::Platform& shown,
                                          int nodes) {
  RunFacts facts;  // of one all_reduce, every algorithm predicted, no compute
  facts.platform = shown.name;
  facts.ranks = ranks;
  facts.nodes_used = nodes;
  facts.upper_levels = has_upper_levels(shown);
  facts.topology = shown.topology;
  facts.compute_ops = facts.rate_timed = facts.reduce_scatters = 0;
  facts.all_reduces = 1;
  facts.compressed = compressed;
  facts.every_algorithm = true;
  std::vector<std::string> notes = idle_settings(settings, facts);
  const bool within_nodes = std::min(ranks, shown.network.accelerators_per_node()) > 1;
  for (std::string& bound : bottleneck_notes(settings, baseline.network, shown.network, nodes, within_nodes)) {
    notes.push_back(std::move(bound));
  }
  return notes;
}

}  // namespace ccsim::study
