#pragma once

#include <string>

#include "import/kineto_run.hpp"

namespace ccsim::import {

/// What `trace import kineto` reports of an imported run after its first line: the hardware
/// recorded, a table that checks each rank's operators against its measured iteration (and
/// against summary.json's times and breakdown rows when the run has one), then, per rank, what
/// was not imported or not understood.
std::string check_report(const KinetoRun& run);

}  // namespace ccsim::import
