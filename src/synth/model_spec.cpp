#include "synth/model_spec.hpp"

#include <array>
#include <filesystem>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/json.hpp"
#include "core/json_reader.hpp"

namespace ccsim::synth {
namespace {

ModelSpec gpt(std::string name, std::string source, int layers, int hidden, int heads, int vocab, int seq) {
  ModelSpec m;
  m.name = std::move(name);
  m.source = std::move(source);
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.ffn = 4 * hidden;
  m.vocab = vocab;
  m.seq = seq;
  m.activation = Activation::kGelu;
  m.learned_positions = true;
  m.untied_head = false;
  m.biases = true;
  m.dtype = DType::kF16;
  m.dropout = 0.1;  // Megatron's --attention-dropout and --hidden-dropout defaults
  return m;
}

ModelSpec llama(std::string name, std::string source, int layers, int hidden, int heads, int kv_heads, int ffn,
                int vocab, int seq) {
  ModelSpec m;
  m.name = std::move(name);
  m.source = std::move(source);
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.ffn = ffn;
  m.vocab = vocab;
  m.seq = seq;
  m.activation = Activation::kSwiglu;
  m.learned_positions = false;  // rotary
  m.untied_head = true;
  m.biases = false;
  m.dtype = DType::kBF16;
  return m;
}

const std::array<ModelSpec, 8>& presets() {
  static const std::array<ModelSpec, 8> list = [] {
    ModelSpec small = gpt("small-gpt",
                          "the model of the shared PyTorch traces (../shared/traces/pytorch/README.md): 4 layers, "
                          "hidden 512, 8 heads, vocabulary 512, sequence 64, ReLU, fp32",
                          4, 512, 8, 512, 64);
    small.activation = Activation::kRelu;
    small.dtype = DType::kF32;
    small.dropout = 0;  // the shared traces' model has no dropout
    return std::array<ModelSpec, 8>{
        gpt("gpt3-175b",
            "Brown et al. 2020, Table 2.1: 96 layers, d_model 12288, 96 heads, context 2048; GPT-2 BPE vocabulary 50257",
            96, 12288, 96, 50257, 2048),
        llama(
            "llama2-7b",
            "Touvron et al. 2023 (Llama 2) and its model card: 32 layers, 4096, 32 heads, FFN 11008, vocabulary 32000, context 4096",
            32, 4096, 32, 32, 11008, 32000, 4096),
        llama("llama2-13b", "Llama 2 model card: 40 layers, 5120, 40 heads, FFN 13824, vocabulary 32000, context 4096",
              40, 5120, 40, 40, 13824, 32000, 4096),
        llama(
            "llama2-70b",
            "Llama 2 model card: 80 layers, 8192, 64 heads with 8 KV heads (GQA), FFN 28672, vocabulary 32000, context 4096",
            80, 8192, 64, 8, 28672, 32000, 4096),
        llama(
            "llama3-8b",
            "Llama 3 model card: 32 layers, 4096, 32 heads with 8 KV heads, FFN 14336, vocabulary 128256, context 8192",
            32, 4096, 32, 8, 14336, 128256, 8192),
        llama(
            "llama3-70b",
            "Llama 3 model card: 80 layers, 8192, 64 heads with 8 KV heads, FFN 28672, vocabulary 128256, context 8192",
            80, 8192, 64, 8, 28672, 128256, 8192),
        llama(
            "llama3-405b",
            "Dubey et al. 2024 (The Llama 3 Herd of Models), Table 3, and the model card: 126 layers, 16384, 128 heads with 8 KV heads, FFN 53248, vocabulary 128256, context 8192",
            126, 16384, 128, 8, 53248, 128256, 8192),
        small,
    };
  }();
  return list;
}

}  // namespace

std::string_view activation_name(Activation a) {
  switch (a) {
    case Activation::kRelu:
      return "relu";
    case Activation::kGelu:
      return "gelu";
    case Activation::kSwiglu:
      return "swiglu";
  }
  return "?";
}

double ModelSpec::layer_params() const {
  const double h = hidden;
  const double kv = static_cast<double>(kv_heads) * head_dim();
  double attention = h * (h + 2 * kv) + h * h;  // QKV and output projection
  double mlp = (activation == Activation::kSwiglu ? 3.0 : 2.0) * h * ffn;
  double norms = biases ? 4 * h : 2 * h;  // LayerNorm weight+bias x2, or RMSNorm weight x2
  if (biases) {
    attention += (h + 2 * kv) + h;
    mlp += (activation == Activation::kSwiglu ? 2.0 : 1.0) * ffn + h;  // the input projection's outputs (gate and up)
  }
  return attention + mlp + norms;
}

double ModelSpec::embedding_params() const {
  return static_cast<double>(vocab) * hidden + (learned_positions ? static_cast<double>(seq) * hidden : 0.0);
}

double ModelSpec::head_params() const {
  // Final norm plus, when untied, the vocab x h head (tied heads reuse the embedding).
  return (biases ? 2.0 : 1.0) * hidden + (untied_head ? static_cast<double>(vocab) * hidden : 0.0);
}

double ModelSpec::total_params() const { return layers * layer_params() + embedding_params() + head_params(); }

std::span<const ModelSpec> model_presets() { return presets(); }

ModelSpec parse_model(std::string_view text, const std::string& source) {
  json::Value root = json::parse(text, source);
  json::ObjectReader doc(root, source, "");
  const std::string format = doc.required("format").string();
  if (format != "ccsim-model") doc.at("format").fail(fmt::format("expected \"ccsim-model\", got \"{}\"", format));
  if (doc.required("version").integer() != 1) doc.at("version").fail("expected 1 (the only version this build reads)");
  ModelSpec m;
  m.name = doc.required("name").string();
  m.source = doc.required("source").string();
  if (m.source.empty()) doc.at("source").fail("expected where the figures come from, got \"\"");
  auto count = [&](std::string_view key, std::int64_t max) {
    const std::int64_t v = doc.required(key).positive_integer();
    if (v > max) doc.at(key).fail(fmt::format("expected at most {}, got \"{}\"", max, v));
    return static_cast<int>(v);
  };
  m.layers = count("layers", 100000);
  m.hidden = count("hidden", 1 << 20);
  m.heads = count("heads", 1 << 14);
  m.kv_heads = doc.has("kv_heads") ? count("kv_heads", 1 << 14) : m.heads;
  m.ffn = count("ffn", 1 << 22);
  m.vocab = count("vocab", 1 << 24);
  m.seq = count("seq", 1 << 24);
  const std::string act = doc.required("activation").choice({"relu", "gelu", "swiglu"});
  m.activation = act == "relu" ? Activation::kRelu : act == "gelu" ? Activation::kGelu : Activation::kSwiglu;
  m.learned_positions = doc.optional("learned_positions").boolean().value_or(false);
  m.untied_head = doc.optional("untied_head").boolean().value_or(false);
  m.biases = doc.optional("biases").boolean().value_or(false);
  const std::string dtype = doc.required("dtype").choice({"fp32", "fp16", "bf16"});
  m.dtype = *parse_dtype(dtype);
  if (doc.has("dropout")) {
    m.dropout = doc.required("dropout").non_negative();
    if (m.dropout >= 1) doc.at("dropout").fail(fmt::format("expected a probability in [0, 1), got \"{}\"", m.dropout));
  }
  doc.allow({"description"});
  doc.finish();
  if (m.hidden % m.heads != 0) {
    doc.at("heads").fail(fmt::format("expected a divisor of hidden {}, got \"{}\"", m.hidden, m.heads));
  }
  if (m.heads % m.kv_heads != 0) {
    doc.at("kv_heads").fail(fmt::format("expected a divisor of heads {}, got \"{}\"", m.heads, m.kv_heads));
  }
  return m;
}

ModelSpec load_model(const std::string& name_or_file) {
  for (const ModelSpec& m : presets()) {
    if (m.name == name_or_file) return m;
  }
  std::error_code ec;
  if (name_or_file.find('/') != std::string::npos || name_or_file.ends_with(".json") ||
      std::filesystem::exists(name_or_file, ec)) {
    return parse_model(json::read_file(name_or_file), name_or_file);
  }
  std::string names;
  for (const ModelSpec& m : presets()) names += (names.empty() ? "" : ", ") + m.name;
  throw InputError(
      "command line", 0, "--model",
      fmt::format("unknown model \"{}\"; presets: {} (or a model file, models/README.md)", name_or_file, names));
}

}  // namespace ccsim::synth
