#pragma once

#include "synth/megatron.hpp"

namespace ccsim::test {

/// A Megatron split of TP x PP x DP with `micro_batches` per iteration, the rest defaults.
inline synth::Parallelism split(int tp, int pp, int dp, int micro_batches = 1) {
  synth::Parallelism p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.micro_batches = micro_batches;
  return p;
}

}  // namespace ccsim::test
