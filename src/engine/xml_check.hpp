#pragma once

#include <string>

namespace ccsim::engine {

/// Loads a SimGrid platform file (e.g. one written by `ccsim platform export --xml`) with
/// the engine's network configuration and returns the simulated time of one lone transfer
/// of `bytes` from host `src` to host `dst`. Runs in a child process; a file SimGrid cannot
/// load is a runtime_error carrying SimGrid's message.
double xml_transfer_time(const std::string& path, const std::string& src, const std::string& dst, double bytes);

}  // namespace ccsim::engine
