#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/result.hpp"
#include "trace/native_reader.hpp"

namespace ccsim::test {

/// A native trace of `world` ranks with the given groups (JSON objects, comma-separated) and
/// per-rank operator lists (JSON objects, comma-separated). Rank r's entry is on line 4 + r.
inline trace::Trace make_trace(int world, const std::string& groups, const std::vector<std::string>& ops) {
  std::string ranks;
  for (int r = 0; r < world; ++r) {
    ranks += fmt::format("{}{{\"rank\": {}, \"ops\": [{}]}}", r ? ",\n" : "", r, ops[static_cast<std::size_t>(r)]);
  }
  return trace::parse_native(fmt::format(R"({{"format": "ccsim-trace", "version": 1, "name": "t", "world_size": {},
"groups": [{}],
"ranks": [
{}
]}})",
                                         world, groups, ranks),
                             "t.json");
}

inline double op_time(const engine::Result& r, int rank, std::size_t op) {
  const engine::OpRecord& rec = r.ops[static_cast<std::size_t>(rank)][op];
  return rec.end_s - rec.start_s;
}

inline std::string send(int peer, std::uint64_t bytes, const std::string& tag = "") {
  return fmt::format(R"({{"kind": "send", "peer": {}, "bytes": {}, "tag": "{}"}})", peer, bytes, tag);
}

inline std::string recv(int peer, std::uint64_t bytes, const std::string& tag = "") {
  return fmt::format(R"({{"kind": "recv", "peer": {}, "bytes": {}, "tag": "{}"}})", peer, bytes, tag);
}

}  // namespace ccsim::test
