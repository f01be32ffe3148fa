#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/units.hpp"

namespace ccsim::synth {

enum class Activation : std::uint8_t { kRelu, kGelu, kSwiglu };
std::string_view activation_name(Activation a);

/// A decoder-only transformer as Megatron builds it: what `ccsim trace synth` needs to write
/// every operator's FLOPs and bytes and every message's size.
struct ModelSpec {
  std::string name;
  std::string source;  ///< where the figures come from (paper, model card)
  int layers = 0;
  int hidden = 0;    ///< h
  int heads = 0;     ///< a (query heads)
  int kv_heads = 0;  ///< g: grouped-query attention (= heads for multi-head attention)
  int ffn = 0;       ///< f: MLP inner size (per projection for SwiGLU)
  int vocab = 0;
  int seq = 0;  ///< default sequence length
  Activation activation = Activation::kGelu;
  bool learned_positions = false;  ///< GPT: a learned position embedding (seq x h parameters)
  bool untied_head = false;        ///< LLaMA: the LM head is its own vocab x h matrix
  bool biases = true;              ///< GPT: linear layers have biases; LLaMA: none
  DType dtype = DType::kBF16;      ///< weights and activations
  /// Dropout probability after attention (on the softmax's output) and after the attention and
  /// MLP outputs: 0.1 in Megatron's GPT defaults (--attention-dropout, --hidden-dropout), 0 for
  /// LLaMA. 0: no dropout operators, the residual adds alone.
  double dropout = 0;

  int head_dim() const { return hidden / heads; }
  /// Parameters of one transformer layer (attention, MLP, norms).
  double layer_params() const;
  /// Embedding parameters (token, and positions when learned) and the head's when untied.
  double embedding_params() const;
  double head_params() const;
  double total_params() const;
};

/// The presets: gpt3-175b, llama2-7b, llama2-13b, llama2-70b, llama3-8b, llama3-70b,
/// llama3-405b, small-gpt (the model of the shared PyTorch traces).
std::span<const ModelSpec> model_presets();
/// A preset by name, or a model file (JSON, format "ccsim-model", models/README.md).
/// Unknown names list the presets.
ModelSpec load_model(const std::string& name_or_file);
ModelSpec parse_model(std::string_view text, const std::string& source);

}  // namespace ccsim::synth
