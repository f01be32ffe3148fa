#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/result.hpp"

namespace ccsim::test {

/// A record of the report tests' hand-made results, by name whatever the field order of
/// engine::OpRecord (its fields are ordered for size, not for reading).
inline engine::OpRecord record(std::uint32_t name, std::uint32_t label, std::uint32_t kind, std::uint64_t bytes,
                               double start_s, double end_s, std::uint32_t algorithm = 0) {
  engine::OpRecord r;
  r.name = name;
  r.label = label;
  r.kind = kind;
  r.bytes = bytes;
  r.start_s = start_s;
  r.end_s = end_s;
  r.algorithm = algorithm;
  return r;
}

/// The header of a hand-made result of `world` ranks in one stage, with the given names table
/// and no operators yet (trace "t" on platform "p", one iteration, ring all_reduce).
inline engine::Result hand_made_result(int world, std::vector<std::string> names) {
  engine::Result r;
  r.trace_name = "t";
  r.iterations = 1;
  r.platform_name = "p";
  r.network_model = "model";
  r.algorithm = "all_reduce: ring";
  r.world_size = world;
  r.stage.assign(static_cast<std::size_t>(world), 0);
  r.names = std::move(names);
  return r;
}

}  // namespace ccsim::test
