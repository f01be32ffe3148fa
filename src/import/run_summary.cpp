#include "import/run_summary.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "core/output_file.hpp"

namespace ccsim::import {

namespace {

/// Folds one rank's `unprofiled_step_ms` (ranks[index]) into `steps`, each step's max over the
/// ranks read so far: a step of the iteration ends when its last rank does.
void read_steps(const std::string& path, const nlohmann::json& rank, std::size_t index, std::vector<double>& steps) {
  if (!rank.contains("unprofiled_step_ms")) return;
  const std::string field = fmt::format("ranks[{}].unprofiled_step_ms", index);
  const nlohmann::json& times = rank.at("unprofiled_step_ms");
  if (!times.is_array() || times.empty()) {
    throw InputError(path, 0, field, fmt::format("expected a list of step times in ms, got {}", times.dump()));
  }
  if (!steps.empty() && times.size() != steps.size()) {
    throw InputError(path, 0, field,
                     fmt::format("has {} steps, but the ranks before it have {}: every rank times the same steps",
                                 times.size(), steps.size()));
  }
  steps.resize(times.size(), 0.0);
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double ms = times[i].is_number() ? times[i].get<double>() : -1;
    if (!(ms > 0) || !std::isfinite(ms)) {
      throw InputError(path, 0, fmt::format("{}[{}]", field, i),
                       fmt::format("expected a positive time in ms, got {}", times[i].dump()));
    }
    steps[i] = std::max(steps[i], ms);
  }
}

}  // namespace

RunSummary read_run_summary(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open the file");
  note_input_file(path);  // an output must not replace it
  return read_run_summary(in, path);
}

/// Long: the summary's fields in document order, each checked where it is read.
RunSummary read_run_summary(std::istream& in, const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, 0, "", fmt::format("byte {}: malformed JSON ({})", e.byte, e.what()));
  } catch (const nlohmann::json::exception& e) {  // a number out of range (1e400): out_of_range
    throw InputError(path, 0, "", fmt::format("malformed JSON ({})", e.what()));
  }
  RunSummary s;
  s.file = path;
  try {
    if (doc.contains("iteration_time_ms")) {
      const auto& it = doc.at("iteration_time_ms");
      s.unprofiled_ms = it.value("unprofiled_median_max_over_ranks", -1.0);
      s.profiled_ms = it.value("profiled_median_max_over_ranks", -1.0);
      if (it.contains("unprofiled_median_per_rank"))
        s.unprofiled_rank_ms = it.at("unprofiled_median_per_rank").get<std::vector<double>>();
      if (it.contains("profiled_median_per_rank"))
        s.profiled_rank_ms = it.at("profiled_median_per_rank").get<std::vector<double>>();
    }
    if (doc.contains("environment") && doc.at("environment").is_object()) {
      const auto& env = doc.at("environment");
      const auto text = [&](const char* key) {
        return env.contains(key) && env.at(key).is_string() ? env.at(key).get<std::string>() : std::string();
      };
      double probe_sum = 0;
      int probes = 0;
      for (const char* key : {"gemm_probe_gflops_before", "gemm_probe_gflops_after"}) {
        if (!env.contains(key) || !env.at(key).is_number()) continue;
        const double v = env.at(key).get<double>();
        if (!(v > 0 && v < 1e9)) continue;  // a probe of a CPU core: positive, finite, sane
        probe_sum += v;
        ++probes;
      }
      if (probes > 0) s.gemm_probe_gflops = probe_sum / probes;
      std::string cpu = text("lscpu_model_name");
      if (!cpu.empty()) {
        s.hardware = cpu;
        if (env.contains("nproc") && env.at("nproc").is_number_integer()) {
          s.hardware += fmt::format(", {} cores", env.at("nproc").get<long long>());
        }
        const std::string blas = text("blas");
        if (!blas.empty()) s.hardware += ", BLAS " + blas.substr(blas.rfind('/') + 1);
      }
    }
    if (doc.contains("ranks")) {
      // A rank is a process of the run: 0 .. world_size - 1 (its rows are indexed by it).
      long long world = static_cast<long long>(doc.at("ranks").size());
      if (doc.contains("world_size")) {
        const nlohmann::json& w = doc.at("world_size");
        if (!w.is_number_integer() || w.get<long long>() < 1 || w.get<long long>() > (1 << 20)) {
          throw InputError(path, 0, "world_size", fmt::format("expected an integer 1..{}, got {}", 1 << 20, w.dump()));
        }
        world = w.get<long long>();
      }
      std::size_t index = 0;
      for (const auto& r : doc.at("ranks")) {
        const nlohmann::json& id = r.at("rank");
        if (!id.is_number_integer() || id.get<long long>() < 0 || id.get<long long>() >= world) {
          throw InputError(
              path, 0, fmt::format("ranks[{}].rank", index),
              fmt::format("expected a rank 0..{} of the run's {} processes, got {}", world - 1, world, id.dump()));
        }
        const auto rank = static_cast<std::size_t>(id.get<long long>());
        if (s.rows.size() <= rank) s.rows.resize(rank + 1);
        read_steps(path, r, index++, s.unprofiled_step_ms);
        if (!r.contains("breakdown")) continue;
        for (const auto& row : r.at("breakdown"))
          s.rows[rank][row.at("op").get<std::string>()] = row.at("total_ms").get<double>();
      }
    }
    if (doc.contains("config") && doc.at("config").is_object()) {
      const auto& c = doc.at("config");
      RunConfig& rc = s.config.emplace();
      const auto count = [&](const char* key, int& out) {
        if (!c.contains(key)) return;
        if (!c.at(key).is_number_integer() || c.at(key).get<long long>() < 1 ||
            c.at(key).get<long long>() > (1 << 24)) {
          throw InputError(path, 0, fmt::format("config.{}", key),
                           fmt::format("expected an integer 1..{}, got {}", 1 << 24, c.at(key).dump()));
        }
        out = static_cast<int>(c.at(key).get<long long>());
      };
      count("tp", rc.tp);
      count("pp", rc.pp);
      count("dp", rc.dp);
      count("layers", rc.layers);
      count("hidden", rc.hidden);
      count("heads", rc.heads);
      count("seq", rc.seq);
      count("micro_batch", rc.micro_batch);
      count("num_micro_batches", rc.micro_batches);
      count("vocab", rc.vocab);
      if (c.contains("act") && c.at("act").is_string()) rc.act = c.at("act").get<std::string>();
      if (c.contains("name") && c.at("name").is_string()) rc.name = c.at("name").get<std::string>();
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path, 0, "", fmt::format("unexpected summary layout ({})", e.what()));
  }
  return s;
}

}  // namespace ccsim::import
