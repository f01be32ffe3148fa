#pragma once

#include <cstdint>

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

}  // namespace ccsim::test
