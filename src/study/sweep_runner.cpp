#include "study/sweep_runner.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "collective/algorithm_choice.hpp"
#include "compress/compress_spec.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "engine/child_process.hpp"
#include "engine/replay.hpp"
#include "report/breakdown.hpp"
#include "report/summary.hpp"
#include "study/collective_study.hpp"
#include "study/job_facts.hpp"
#include "study/synth_job.hpp"
#include "study/what_if.hpp"
#include "synth/megatron.hpp"
#include "trace/native_reader.hpp"
#include "trace/validate.hpp"

namespace ccsim::study {
namespace {

using Row = nlohmann::ordered_json;

/// A path in the spec, relative to the spec's folder.
std::string beside_spec(const std::string& spec, const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  return (std::filesystem::path(spec).parent_path() / path).lexically_normal().string();
}

/// A platform or model value: a preset name as is, a file (with '/' or ending in .json) beside
/// the spec.
std::string platform_value(const std::string& spec, const std::string& text) {
  const bool file =
      text.find('/') != std::string::npos || (text.size() > 5 && text.compare(text.size() - 5, 5, ".json") == 0);
  return file ? beside_spec(spec, text) : text;
}

std::string text_of(const std::optional<SweepValue>& v, const std::string& fallback) { return v ? v->text : fallback; }

/// Rethrows an error raised while evaluating scenario `index` at the spec value it is about
/// (a command-line field such as --ranks or a --set key), or with the scenario named.
[[noreturn]] void rethrow_at(const InputError& e, const Scenario& s, std::size_t index, const std::string& spec) {
  const SourceRef* at = nullptr;
  if (e.file() == "--set" || e.file() == "synth") {
    for (const SweepValue& v : e.file() == "synth" ? s.synth : s.settings) {
      if (v.text.substr(0, v.text.find('=')) == e.field()) at = &v.at;
    }
  } else if (e.file() == "command line" || e.file() == "--compress") {
    if (e.field() == "--ranks" && s.ranks) at = &s.ranks->at;
    if (e.field() == "--platform" && s.platform) at = &s.platform->at;
    if (e.file() == "--compress" && s.compress) at = &s.compress->at;
    if (e.field() == "--compress" && s.compress) at = &s.compress->at;
  }
  if (at != nullptr) at->fail(e.detail());
  throw InputError(e.file(), e.line(), e.field(), fmt::format("{} (scenario {} of {})", e.detail(), index + 1, spec));
}

}  // namespace

SweepEngine choose_sweep_engine(const SweepSpec& spec, const std::string& option) {
  SweepEngine engine = spec.mode == SweepMode::kCollective ? SweepEngine::kClosedForm : SweepEngine::kSim;
  if (spec.engine) engine = *spec.engine;
  if (!option.empty()) engine = option == "sim" ? SweepEngine::kSim : SweepEngine::kClosedForm;
  if (spec.mode != SweepMode::kCollective && engine == SweepEngine::kClosedForm) {
    const SourceRef at = option.empty() ? spec.engine_at : SourceRef{"command line", 0, "--engine"};
    at.fail(
        "the closed form covers the collective mode (\"mode\": \"collective\"); a trace is replayed by SimGrid "
        "(engine \"sim\")");
  }
  return engine;
}

SweepRunner::SweepRunner(SweepSpec spec, SweepEngine engine, DataLookup lookup)
    : spec_(std::move(spec)), engine_(engine), lookup_(std::move(lookup)) {}

void SweepRunner::check_files() {
  std::set<std::string> seen;
  for (const Scenario& s : spec_.scenarios) {
    if (s.platform && seen.insert("p:" + s.platform->text).second) {
      try {
        lookup_.platform_file(platform_value(spec_.file, s.platform->text));
      } catch (const InputError& e) {
        s.platform->at.fail(e.detail());
      }
    }
    if (s.compress && s.compress->text != "none" && seen.insert("c:" + s.compress->text).second) {
      try {
        lookup_.compressor(compress::parse_compress_spec(s.compress->text));
      } catch (const InputError& e) {
        s.compress->at.fail(e.detail());
      }
    }
    if (s.trace && !traces_.count(s.trace->text)) {
      traces_.emplace(s.trace->text, trace::read_native(beside_spec(spec_.file, s.trace->text)));
    }
    for (const SweepValue& v : s.synth) {
      if (v.text.rfind("model=", 0) != 0 || models_.count(v.text.substr(6))) continue;
      const std::string model = v.text.substr(6);
      try {
        models_.emplace(model, synth::load_model(platform_value(spec_.file, model)));
      } catch (const InputError& e) {
        v.at.fail(e.detail());
      }
    }
  }
}

nlohmann::ordered_json SweepRunner::rows(std::size_t index) {
  const Scenario& s = spec_.scenarios.at(index);
  try {
    return spec_.mode == SweepMode::kTrace   ? trace_rows(index, s)
           : spec_.mode == SweepMode::kSynth ? synth_rows(index, s)
                                             : collective_rows(index, s);
  } catch (const InputError& e) {
    rethrow_at(e, s, index, spec_.file);
  }
}

std::string SweepRunner::evaluate(std::size_t index) { return rows(index).dump(); }

ReplaySettings SweepRunner::settings_of(const Scenario& s) const {
  ReplaySettings settings;
  if (s.platform) settings.platform = platform_value(spec_.file, s.platform->text);
  if (s.algo) settings.algorithm = s.algo->text;
  if (s.compress && s.compress->text != "none") settings.compress = s.compress->text;
  for (const SweepValue& v : s.settings) settings.settings.push_back(v.text);
  return settings;
}

const topology::Platform& SweepRunner::platform(const ReplaySettings& settings, const std::string& name) {
  const std::string key = fmt::format("{}|{}", name, fmt::join(settings.settings, "|"));
  auto it = platforms_.find(key);
  if (it == platforms_.end()) {
    it = platforms_.emplace(key, lookup_.platform(name, parse_what_if(settings.settings).platform)).first;
  }
  return it->second;
}

/// The columns every row starts with: the scenario and its axes.
Row SweepRunner::head(std::size_t index, const Scenario& s, const std::string& platform_name) const {
  Row row;
  row["scenario"] = index + 1;
  if (spec_.mode == SweepMode::kTrace) row["trace"] = text_of(s.trace, "");
  row["platform"] = platform_name;
  for (const std::string& key : spec_.set_keys) {
    std::string value;
    for (const SweepValue& v : s.settings) {
      if (v.text.substr(0, v.text.find('=')) == key) value = v.text.substr(v.text.find('=') + 1);
    }
    row[key] = value;
  }
  row["compress"] = text_of(s.compress, "none");
  return row;
}

Row SweepRunner::trace_rows(std::size_t index, const Scenario& s) {
  trace::Trace trace = traces_.at(s.trace->text);
  const ReplaySettings settings = settings_of(s);
  const std::string name = settings.platform.empty() ? trace.platform : settings.platform;
  if (name.empty()) {
    throw InputError(spec_.file, 0, "platform",
                     fmt::format("the trace \"{}\" names no platform; give 'platform' in the spec", s.trace->text));
  }
  const topology::Platform& p = platform(settings, name);
  engine::ReplayOptions options = replay_options(settings, p, lookup_);
  apply_compute(settings, trace, p, options, lookup_);
  const engine::Result result = engine::replay(trace, p, options);
  Row row = head(index, s, p.name);
  row["algo"] = text_of(s.algo, "auto");
  row["engine"] = "sim";
  row["ranks"] = result.world_size;
  row["nodes"] = result.nodes_used;
  row["iterations"] = std::max(result.iterations, 1);  // a trace that does not say: one, as cost takes it
  row["iteration_ms"] = result.makespan_s / std::max(result.iterations, 1) * 1e3;
  row["makespan_ms"] = result.makespan_s * 1e3;
  row["algorithms"] = result.algorithm;
  return Row::array({row});
}

/// The synth mode: the job of the scenario's synth keys, resolved (dp, micro-batches) and
/// checked as `trace synth` checks it; a job it would refuse is a row that says why.
Row SweepRunner::synth_rows(std::size_t index, const Scenario& s) {
  const ReplaySettings settings = settings_of(s);
  const topology::Platform& p = platform(settings, settings.platform);
  std::vector<std::string> keys;
  for (const SweepValue& v : s.synth) keys.push_back(v.text);
  const SynthJobSpec job = parse_synth_job(keys);
  const synth::ModelSpec& model = models_.at(job.model);
  const SynthJobFit fit = resolve_synth_job(job, model, p);
  const synth::Parallelism& par = fit.par;
  auto known = [](int v) { return v > 0 ? Row(v) : Row(); };
  Row row = head(index, s, p.name);
  row["algo"] = text_of(s.algo, "auto");
  row["engine"] = "sim";
  row["model"] = model.name;
  row["tp"] = par.tp;
  row["pp"] = par.pp;
  row["dp"] = known(par.dp);
  row["micro_batches"] = known(par.micro_batches);
  row["micro_batch_size"] = par.micro_batch_size;
  row["schedule"] = std::string(synth::schedule_name(par.schedule));
  row["virtual_stages"] = par.virtual_stages;
  row["sp"] = par.sp;
  row["recompute"] = std::string(synth::recompute_name(par.recompute));
  row["zero"] = par.zero;
  row["overlap_grad_reduce"] = par.overlap_grad_reduce;
  row["ranks"] = known(par.world());
  row["memory_GiB"] = fit.memory.total() > 0 ? Row(fit.memory.total() / (1024.0 * 1024 * 1024)) : Row();
  row["status"] = fit.runs ? "ok" : "refused: " + fit.refusal;
  for (const char* figure : {"iteration_ms", "tokens_per_s", "mfu_pct", "model_tflops_per_gpu",
                             "communication_exposed_pct", "pipeline_bubble_pct", "algorithms"}) {
    row[figure] = Row();
  }
  if (!fit.runs) return Row::array({row});

  trace::Trace trace = synth::synthesize(model, par, p.name);
  engine::ReplayOptions options = replay_options(settings, p, lookup_);
  apply_compute(settings, trace, p, options, lookup_);
  const engine::Result result = engine::replay(trace, p, options);
  const report::JobFacts facts = job_facts(trace, p);
  const report::Summary summary = report::make_summary(result, facts);
  auto or_null = [](const std::optional<double>& v, double scale) { return v ? Row(*v * scale) : Row(); };
  row["iteration_ms"] = summary.iteration_s * 1e3;
  row["tokens_per_s"] = or_null(summary.tokens_per_s.value, 1);
  row["mfu_pct"] = or_null(summary.mfu.value, 100);
  row["model_tflops_per_gpu"] = or_null(summary.mfu.value, facts.peak_flops_per_rank / 1e12);
  row["communication_exposed_pct"] = summary.split.exposed_s() / summary.split.end_s * 100;
  row["pipeline_bubble_pct"] = summary.split.bubble_s / summary.split.end_s * 100;
  row["algorithms"] = result.algorithm;
  return Row::array({row});
}

Row SweepRunner::collective_rows(std::size_t index, const Scenario& s) {
  const ReplaySettings settings = with_settings(settings_of(s));
  const DType dtype = parse_dtype(text_of(s.dtype, "fp32")).value();
  const std::uint64_t bytes = parse_bytes_or_throw(s.bytes->text, s.bytes->at.file, s.bytes->at.field);
  check_collective_bytes(bytes, s.bytes->text, dtype, s.bytes->at.file, s.bytes->at.line, s.bytes->at.field);
  const int ranks = static_cast<int>(parse_int(s.ranks->text).value());
  const topology::Platform& p = platform(settings, settings.platform);
  const CollectiveStudy study = study_collective(p, settings.compress, ranks, bytes, dtype, lookup_);
  const std::string chosen = collective::fastest(study.predictions).algorithm;
  std::vector<const collective::Prediction*> shown;
  for (const collective::Prediction& pr : study.predictions) {
    if (settings.algorithm == "auto" || pr.algorithm == settings.algorithm) shown.push_back(&pr);
  }
  if (shown.empty()) {
    std::vector<std::string> valid;
    for (const collective::Prediction& pr : study.predictions) valid.push_back(pr.algorithm);
    const SourceRef at = s.algo ? s.algo->at : SourceRef{spec_.file, 0, "algo"};
    at.fail(
        fmt::format("\"{}\" does not apply to this scenario ({} ranks on {} node(s), compress {}); those that "
                    "apply: {}",
                    settings.algorithm, ranks, study.nodes, settings.compress.empty() ? "none" : settings.compress,
                    fmt::join(valid, ", ")));
  }
  Row rows = Row::array();
  for (const collective::Prediction* pr : shown) {
    Row row = head(index, s, p.name);
    row["dtype"] = std::string(dtype_name(dtype));
    row["ranks"] = ranks;
    row["nodes"] = study.nodes;
    row["bytes"] = bytes;
    row["algorithm"] = pr->algorithm;
    row["auto_choice"] = chosen;
    row["engine"] = std::string(sweep_engine_name(engine_));
    double time_s = pr->time_s;
    if (engine_ == SweepEngine::kSim) {
      row["predicted_ms"] = pr->time_s * 1e3;
      time_s = simulate_collective(settings, p, pr->algorithm, ranks, bytes, dtype);
    } else {
      row["nic_sharing"] = pr->nic_sharing;
    }
    row["time_ms"] = time_s * 1e3;
    row["algbw_GBps"] = static_cast<double>(bytes) / time_s / 1e9;
    row["busbw_GBps"] = all_reduce_bus_bandwidth_Bps(bytes, time_s, ranks) / 1e9;
    rows.push_back(std::move(row));
  }
  return rows;
}

/// A replay of a trace of this one all_reduce, ranks in order on the accelerators.
double SweepRunner::simulate_collective(const ReplaySettings& given, const topology::Platform& p,
                                        const std::string& algorithm, int ranks, std::uint64_t bytes,
                                        DType dtype) const {
  trace::Trace t;
  t.source = spec_.file;
  t.name = fmt::format("all_reduce of {} bytes on {} ranks", bytes, ranks);
  t.one_program_per_rank(ranks);
  t.iterations = 1;
  trace::Group group;
  group.name = "world";
  group.kind = trace::GroupKind::kData;
  for (int r = 0; r < ranks; ++r) group.ranks.push_back(r);
  t.groups.push_back(group);
  trace::Op op;
  op.kind = trace::OpKind::kAllReduce;
  op.dtype = dtype;
  op.name = t.names.intern("all_reduce");
  op.group = 0;
  op.bytes = bytes;
  for (trace::Program& program : t.programs) program.ops.push_back(op);
  trace::validate(t);
  ReplaySettings settings = given;
  settings.algorithm = algorithm;
  settings.placement = "rank-order";
  return engine::replay(t, p, replay_options(settings, p, lookup_)).makespan_s;
}

std::vector<Row> outcome_rows(const std::vector<std::string>& outcomes) {
  std::vector<Row> rows;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].empty()) throw std::runtime_error(fmt::format("scenario {} was not evaluated", i + 1));
    for (Row& row : Row::parse(engine::decode_outcome(outcomes[i]))) rows.push_back(std::move(row));
  }
  return rows;
}

std::string render_sweep_rows(const SweepSpec& spec, SweepEngine engine, const std::vector<Row>& rows,
                              const std::string& format) {
  if (format == "json") {
    Row doc;
    doc["sweep"] = spec.file;
    doc["mode"] = std::string(sweep_mode_name(spec.mode));
    doc["engine"] = std::string(sweep_engine_name(engine));
    doc["scenarios"] = spec.scenarios.size();
    doc["rows"] = rows;
    return doc.dump(2) + "\n";
  }
  std::string out;
  std::vector<std::string> columns;
  for (const auto& [key, value] : rows.front().items()) columns.push_back(report::csv_field(key));
  out += fmt::format("{}\n", fmt::join(columns, ","));
  for (const Row& row : rows) {
    std::vector<std::string> fields;
    for (const auto& [key, value] : row.items()) {
      fields.push_back(value.is_string() ? report::csv_field(value.get<std::string>())
                       : value.is_null() ? ""
                                         : value.dump());
    }
    out += fmt::format("{}\n", fmt::join(fields, ","));
  }
  return out;
}

}  // namespace ccsim::study
