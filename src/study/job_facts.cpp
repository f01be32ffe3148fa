#include "study/job_facts.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

namespace ccsim::study {

report::JobFacts job_facts(const trace::Trace& trace, const topology::Platform& platform) {
  report::JobFacts facts;
  if (trace.workload) {
    facts.global_batch = trace.workload->global_batch;
    facts.sequence_length = trace.workload->sequence_length;
    facts.tokens_per_iteration = trace.workload->tokens();
    facts.model_flops_per_iteration = trace.workload->model_flops;
    facts.model_flops_source = trace.workload->model_flops_source;
  }
  const std::vector<int> ranks = trace.ranks_per_program();
  double flops = 0;
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    const double weight = ranks[p];
    for (const trace::Op& op : trace.programs[p].ops) {
      if (op.kind != trace::OpKind::kCompute) continue;
      facts.compute_ops += static_cast<std::uint64_t>(ranks[p]);
      if (op.flops > 0) {
        flops += weight * op.flops;
      } else {
        facts.compute_ops_without_flops += static_cast<std::uint64_t>(ranks[p]);
      }
    }
  }
  facts.executed_flops_per_iteration = flops / std::max(1, trace.iterations);
  facts.peak_flops_per_rank = platform.network.accelerator().flops;
  facts.accelerator = platform.network.accelerator().model;
  return facts;
}

trace::Hardware accelerator_hardware(const topology::Platform& platform, const std::string& named_by) {
  const topology::AcceleratorSpec& acc = platform.network.accelerator();
  return {acc.model, acc.flops, acc.memory_Bps,
          fmt::format("{}: the accelerator of platform {}", named_by, platform.name)};
}

}  // namespace ccsim::study
