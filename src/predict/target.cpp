#include "predict/target.hpp"

#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/input_error.hpp"

namespace ccsim::predict {

synth::ModelSpec target_model(const PredictOptions& options, const std::optional<import::RunConfig>& config) {
  synth::ModelSpec m = synth::load_model(options.model);
  auto pick = [](int flag, int from_config) { return flag > 0 ? flag : from_config; };
  const int layers = pick(options.layers, config ? config->layers : 0);
  const int hidden = pick(options.hidden, config ? config->hidden : 0);
  const int heads = pick(options.heads, config ? config->heads : 0);
  const int seq = pick(options.seq, config ? config->seq : 0);
  const int vocab = pick(options.vocab, config ? config->vocab : 0);
  if (layers > 0) m.layers = layers;
  if (hidden > 0) {
    m.ffn = m.ffn / m.hidden * hidden;  // keep the model's FFN ratio (4 for GPT)
    m.hidden = hidden;
  }
  if (heads > 0) m.heads = m.kv_heads = heads;
  if (seq > 0) m.seq = seq;
  if (vocab > 0) m.vocab = vocab;
  const std::string act = !options.act.empty() ? options.act : config ? config->act : std::string();
  if (act == "relu")
    m.activation = synth::Activation::kRelu;
  else if (act == "gelu")
    m.activation = synth::Activation::kGelu;
  else if (!act.empty()) {
    throw InputError(options.config.empty() ? "command line" : options.config.front(), 0,
                     options.act.empty() ? "config.act" : "--act",
                     fmt::format("expected relu or gelu, got \"{}\"", act));
  }
  if (m.hidden % m.heads != 0) {
    throw InputError("command line", 0, "--heads",
                     fmt::format("expected a divisor of hidden {}, got \"{}\"", m.hidden, m.heads));
  }
  return m;
}

synth::Parallelism target_parallelism(const PredictOptions& options, const std::optional<import::RunConfig>& config) {
  synth::Parallelism par = options.par;
  par.schedule = synth::PipelineSchedule::kGpipe;
  if (config) {
    if (!options.given_tp && config->tp > 0) par.tp = config->tp;
    if (!options.given_pp && config->pp > 0) par.pp = config->pp;
    if (!options.given_dp && config->dp > 0) par.dp = config->dp;
    if (!options.given_micro_batches && config->micro_batches > 0) par.micro_batches = config->micro_batches;
    if (!options.given_micro_batch_size && config->micro_batch > 0) par.micro_batch_size = config->micro_batch;
  }
  return par;
}

std::string configuration_changes(const import::RunConfig& config, const synth::ModelSpec& model,
                                  const synth::Parallelism& par) {
  std::vector<std::string> changes;
  auto compare = [&](std::string_view what, long long was, long long now) {
    if (was > 0 && was != now) changes.push_back(fmt::format("{} {} -> {}", what, was, now));
  };
  compare("tp", config.tp, par.tp);
  compare("pp", config.pp, par.pp);
  compare("dp", config.dp, par.dp);
  compare("layers", config.layers, model.layers);
  compare("hidden", config.hidden, model.hidden);
  compare("heads", config.heads, model.heads);
  compare("seq", config.seq, par.seq > 0 ? par.seq : model.seq);
  compare("vocab", config.vocab, model.vocab);
  compare("micro-batch size", config.micro_batch, par.micro_batch_size);
  compare("micro-batches", config.micro_batches, par.micro_batches);
  const std::string act(synth::activation_name(model.activation));
  if (!config.act.empty() && config.act != act) changes.push_back(fmt::format("act {} -> {}", config.act, act));
  return fmt::format("{}", fmt::join(changes, ", "));
}

}  // namespace ccsim::predict
