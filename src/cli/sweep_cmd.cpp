// `ccsim sweep SPEC.json|SPEC.toml`: the scenarios of a sweep spec (study/sweep.hpp), evaluated in
// worker processes (SimGrid is one engine per process) and, under an MPI launcher, spread over
// the MPI ranks and gathered on rank 0, which writes one row per scenario in scenario order.

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/option_values.hpp"
#include "cli/simulation_flags.hpp"
#include "compress/compress_spec.hpp"
#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/progress.hpp"
#include "engine/child_process.hpp"
#include "engine/replay.hpp"
#include "measure/communicator.hpp"
#include "report/breakdown.hpp"
#include "report/summary.hpp"
#include "study/collective_study.hpp"
#include "study/job_facts.hpp"
#include "study/sweep.hpp"
#include "study/synth_job.hpp"
#include "study/what_if.hpp"
#include "synth/megatron.hpp"
#include "trace/native_reader.hpp"
#include "trace/validate.hpp"

namespace ccsim::cli {
namespace {

using Row = nlohmann::ordered_json;
using study::Scenario;
using study::SweepEngine;
using study::SweepMode;
using study::SweepSpec;
using study::SweepValue;

struct SweepCommand {
  std::string spec;
  std::string format = "csv";
  std::string output = "-";
  std::string engine;       ///< "" : the spec's, else closed-form for collectives and sim for traces
  int jobs = 0;             ///< 0: one per core locally, one per MPI rank under a launcher
  bool throughput = false;  ///< print scenarios per second on stderr (always when stderr is a terminal)
};

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

/// What one worker keeps between its scenarios.
struct Caches {
  std::map<std::string, topology::Platform> platforms;  ///< by platform and settings
};

class Sweep {
 public:
  Sweep(SweepSpec spec, SweepEngine engine) : spec_(std::move(spec)), engine_(engine) {}

  /// Checks what needs files, once, before any work: platforms exist, compressors have models,
  /// traces read (and are kept: forked workers share them).
  void check_files() {
    std::set<std::string> seen;
    for (const Scenario& s : spec_.scenarios) {
      if (s.platform && seen.insert("p:" + s.platform->text).second) {
        try {
          topology::find_platform(platform_value(spec_.file, s.platform->text), data_folders().platforms);
        } catch (const InputError& e) {
          s.platform->at.fail(e.detail());
        }
      }
      if (s.compress && s.compress->text != "none" && seen.insert("c:" + s.compress->text).second) {
        try {
          compress::load_compressor(compress::parse_compress_spec(s.compress->text), data_folders().compressors);
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

  /// The rows of scenario `index`, as a JSON array.
  std::string evaluate(std::size_t index) {
    const Scenario& s = spec_.scenarios[index];
    try {
      Row rows = spec_.mode == SweepMode::kTrace   ? trace_rows(index, s)
                 : spec_.mode == SweepMode::kSynth ? synth_rows(index, s)
                                                   : collective_rows(index, s);
      return rows.dump();
    } catch (const InputError& e) {
      rethrow_at(e, s, index, spec_.file);
    }
  }

  const SweepSpec& spec() const { return spec_; }

 private:
  SweepSpec spec_;
  SweepEngine engine_;
  std::map<std::string, trace::Trace> traces_;
  std::map<std::string, synth::ModelSpec> models_;  ///< by the spec's synth.model text
  Caches caches_;

  SimulationFlags flags_of(const Scenario& s) const {
    SimulationFlags flags;
    if (s.platform) flags.platform = platform_value(spec_.file, s.platform->text);
    if (s.algo) flags.algorithm = s.algo->text;
    if (s.compress && s.compress->text != "none") flags.compress = s.compress->text;
    for (const SweepValue& v : s.settings) flags.settings.push_back(v.text);
    return flags;
  }

  const topology::Platform& platform(const SimulationFlags& flags, const std::string& name) {
    const std::string key = fmt::format("{}|{}", name, fmt::join(flags.settings, "|"));
    auto it = caches_.platforms.find(key);
    if (it == caches_.platforms.end()) {
      it = caches_.platforms.emplace(key, read_named_platform(name, study::parse_what_if(flags.settings).platform))
               .first;
    }
    return it->second;
  }

  /// The columns every row starts with: the scenario and its axes.
  Row head(std::size_t index, const Scenario& s, const std::string& platform_name) const {
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

  Row trace_rows(std::size_t index, const Scenario& s) {
    trace::Trace trace = traces_.at(s.trace->text);
    const SimulationFlags flags = flags_of(s);
    const std::string name = flags.platform.empty() ? trace.platform : flags.platform;
    if (name.empty()) {
      throw InputError(spec_.file, 0, "platform",
                       fmt::format("the trace \"{}\" names no platform; give 'platform' in the spec", s.trace->text));
    }
    const topology::Platform& p = platform(flags, name);
    engine::ReplayOptions options = replay_options(flags, p);
    apply_compute_flag(flags, trace, p, options);
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
  Row synth_rows(std::size_t index, const Scenario& s) {
    const SimulationFlags flags = flags_of(s);
    const topology::Platform& p = platform(flags, flags.platform);
    std::vector<std::string> settings;
    for (const SweepValue& v : s.synth) settings.push_back(v.text);
    const study::SynthJobSpec job = study::parse_synth_job(settings);
    const synth::ModelSpec& model = models_.at(job.model);
    const study::SynthJobFit fit = study::resolve_synth_job(job, model, p);
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
    engine::ReplayOptions options = replay_options(flags, p);
    apply_compute_flag(flags, trace, p, options);
    const engine::Result result = engine::replay(trace, p, options);
    const report::JobFacts facts = study::job_facts(trace, p);
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

  Row collective_rows(std::size_t index, const Scenario& s) {
    const SimulationFlags flags = with_settings(flags_of(s));
    const DType dtype = parse_dtype(text_of(s.dtype, "fp32")).value();
    const std::uint64_t bytes = parse_bytes_or_throw(s.bytes->text, s.bytes->at.file, s.bytes->at.field);
    study::check_collective_bytes(bytes, s.bytes->text, dtype, s.bytes->at.file, s.bytes->at.line, s.bytes->at.field);
    const int ranks = static_cast<int>(parse_int(s.ranks->text).value());
    const topology::Platform& p = platform(flags, flags.platform);
    const study::CollectiveStudy study = study::study_collective(p, flags.compress, ranks, bytes, dtype, data_lookup());
    const std::string chosen = collective::fastest(study.predictions).algorithm;
    std::vector<const collective::Prediction*> shown;
    for (const collective::Prediction& pr : study.predictions) {
      if (flags.algorithm == "auto" || pr.algorithm == flags.algorithm) shown.push_back(&pr);
    }
    if (shown.empty()) {
      std::vector<std::string> valid;
      for (const collective::Prediction& pr : study.predictions) valid.push_back(pr.algorithm);
      const SourceRef at = s.algo ? s.algo->at : SourceRef{spec_.file, 0, "algo"};
      at.fail(
          fmt::format("\"{}\" does not apply to this scenario ({} ranks on {} node(s), compress {}); those that "
                      "apply: {}",
                      flags.algorithm, ranks, study.nodes, flags.compress.empty() ? "none" : flags.compress,
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
      row["engine"] = std::string(study::sweep_engine_name(engine_));
      double time_s = pr->time_s;
      if (engine_ == SweepEngine::kSim) {
        row["predicted_ms"] = pr->time_s * 1e3;
        time_s = simulate_collective(flags, p, pr->algorithm, ranks, bytes, dtype);
      } else {
        row["nic_sharing"] = pr->nic_sharing;
      }
      row["time_ms"] = time_s * 1e3;
      row["algbw_GBps"] = static_cast<double>(bytes) / time_s / 1e9;
      row["busbw_GBps"] = study::all_reduce_bus_bandwidth_Bps(bytes, time_s, ranks) / 1e9;
      rows.push_back(std::move(row));
    }
    return rows;
  }

  /// A replay of a trace of this one all_reduce, ranks in order on the accelerators.
  double simulate_collective(const SimulationFlags& given, const topology::Platform& p, const std::string& algorithm,
                             int ranks, std::uint64_t bytes, DType dtype) const {
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
    SimulationFlags flags = given;
    flags.algorithm = algorithm;
    flags.placement = "rank-order";
    return engine::replay(t, p, replay_options(flags, p)).makespan_s;
  }
};

std::string render_rows(const SweepSpec& spec, SweepEngine engine, const std::vector<Row>& rows,
                        const std::string& format) {
  if (format == "json") {
    Row doc;
    doc["sweep"] = spec.file;
    doc["mode"] = std::string(study::sweep_mode_name(spec.mode));
    doc["engine"] = std::string(study::sweep_engine_name(engine));
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

void run_sweep(const SweepCommand& cmd) {
  SweepSpec spec = study::read_sweep_spec(cmd.spec);
  SweepEngine engine = spec.mode == SweepMode::kCollective ? SweepEngine::kClosedForm : SweepEngine::kSim;
  if (spec.engine) engine = *spec.engine;
  if (!cmd.engine.empty()) engine = cmd.engine == "sim" ? SweepEngine::kSim : SweepEngine::kClosedForm;
  if (spec.mode != SweepMode::kCollective && engine == SweepEngine::kClosedForm) {
    const SourceRef at = cmd.engine.empty() ? spec.engine_at : SourceRef{"command line", 0, "--engine"};
    at.fail(
        "the closed form covers the collective mode (\"mode\": \"collective\"); a trace is replayed by SimGrid "
        "(engine \"sim\")");
  }
  if (cmd.jobs < 0)
    throw InputError("command line", 0, "-j", fmt::format("expected 0 (one per core) or more, got \"{}\"", cmd.jobs));
  Sweep sweep(std::move(spec), engine);
  sweep.check_files();
  check_output_path(cmd.output);

  const std::size_t total = sweep.spec().scenarios.size();
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> outcomes(total);
  auto work = [&](std::size_t i) { return sweep.evaluate(i); };
  if (under_mpi_launcher()) {
    int argc = 1;
    std::string name = "ccsim";
    char* args[] = {name.data(), nullptr};
    char** argv = args;
    measure::MpiSession session(argc, argv);
    const measure::Communicator world = measure::Communicator::world();
    std::vector<std::size_t> mine;
    for (std::size_t i = static_cast<std::size_t>(world.rank()); i < total;
         i += static_cast<std::size_t>(world.size())) {
      mine.push_back(i);
    }
    Progress progress(fmt::format("sweep, rank 0 of {}", world.size()), world.rank() == 0 && progress_wanted());
    const std::vector<std::string> done = study::run_in_workers(
        mine, cmd.jobs == 0 ? 1 : cmd.jobs, work,
        [&](std::size_t n) { progress.update(static_cast<double>(n) / static_cast<double>(mine.size())); });
    const std::vector<std::string> all = world.all_gather(study::pack_outcomes(mine, done));
    if (world.rank() != 0) return;  // rank 0 reports and writes
    for (const std::string& packed : all) study::unpack_outcomes(packed, outcomes);
  } else {
    std::vector<std::size_t> items(total);
    for (std::size_t i = 0; i < total; ++i) items[i] = i;
    const int jobs = cmd.jobs == 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) : cmd.jobs;
    Progress progress("sweep", progress_wanted());
    outcomes = study::run_in_workers(items, jobs, work, [&](std::size_t n) {
      progress.update(static_cast<double>(n) / static_cast<double>(total));
    });
  }
  std::vector<Row> rows;
  for (std::size_t i = 0; i < total; ++i) {
    if (outcomes[i].empty()) throw std::runtime_error(fmt::format("scenario {} was not evaluated", i + 1));
    for (Row& row : Row::parse(engine::decode_outcome(outcomes[i]))) rows.push_back(std::move(row));
  }
  write_output(cmd.output, render_rows(sweep.spec(), engine, rows, cmd.format));
  if (!cmd.throughput && !progress_wanted()) return;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(stderr, "sweep: {} scenarios, {} rows in {:.2f} s: {:.2f} scenarios per second\n", total, rows.size(),
             seconds, static_cast<double>(total) / std::max(seconds, 1e-9));
}

}  // namespace

void setup_sweep(CLI::App& app) {
  auto cmd = std::make_shared<SweepCommand>();
  CLI::App* sub = app.add_subcommand(
      "sweep",
      "Evaluate the scenarios of a sweep spec (a grid or a list: platform x trace x --set x compressor x algorithm x "
      "size ...) in parallel, one CSV or JSON row per scenario in scenario order; under mpirun the scenarios are "
      "spread over the MPI ranks (docs/replay.md, \"Sweeps\")");
  sub->add_option("spec", cmd->spec, "Sweep spec, JSON or TOML (SPEC.toml; format in sweeps/README.md)")->required();
  sub->add_option("-f,--format", cmd->format, "Output format: csv or json")
      ->check(one_of({"csv", "json"}))
      ->capture_default_str();
  sub->add_option("-o,--output", cmd->output, "Write the rows here ('-': stdout)")->capture_default_str();
  sub->add_option("--engine", cmd->engine,
                  "sim (SimGrid replays: contention, overlap) or closed-form (the schedules' closed forms; the "
                  "collective mode only); default: the spec's, else closed-form for collectives, sim for traces")
      ->check(one_of({"sim", "closed-form"}));
  sub->add_option("-j,--jobs", cmd->jobs,
                  "Worker processes (0: one per core; under an MPI launcher, 0 means one per MPI rank)")
      ->capture_default_str();
  sub->add_flag("--throughput", cmd->throughput,
                "Print the scenarios, the rows, the wall time and the scenarios per second on stderr at the end "
                "(printed anyway when stderr is a terminal)");
  sub->callback([cmd] { run_sweep(*cmd); });
}

}  // namespace ccsim::cli
