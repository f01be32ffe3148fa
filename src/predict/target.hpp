#pragma once

#include <optional>
#include <string>

#include "import/run_summary.hpp"
#include "predict/prediction.hpp"
#include "synth/megatron.hpp"
#include "synth/model_spec.hpp"

// The configuration to predict: the options' sizes and split over those of a --config summary.
namespace ccsim::predict {

/// The model to synthesise: the preset or file of `options.model`, with the sizes the options
/// give, else the configuration's. InputError for an activation other than relu or gelu, or
/// heads that do not divide the hidden size.
synth::ModelSpec target_model(const PredictOptions& options, const std::optional<import::RunConfig>& config);

/// The split to synthesise (GPipe): the fields the options give, else the configuration's.
synth::Parallelism target_parallelism(const PredictOptions& options, const std::optional<import::RunConfig>& config);

/// What the synthesised `model` and `par` change of `config` ("layers 2 -> 8, dp 2 -> 1"),
/// empty when they are its configuration.
std::string configuration_changes(const import::RunConfig& config, const synth::ModelSpec& model,
                                  const synth::Parallelism& par);

}  // namespace ccsim::predict
