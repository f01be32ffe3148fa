// The Kineto importer (src/import): the streaming reader of one rank's profiler trace, then
// the import of its first iteration into a native trace and each operator's breakdown row;
// then the same file read for that iteration alone (ProfileWindow), which must import it too.

#include <sstream>
#include <string>

#include "fuzz_target.hpp"
#include "import/kineto.hpp"
#include "import/kineto_reader.hpp"

CCSIM_FUZZ_TARGET(kineto) {
  ccsim::fuzz::input_errors_only([&] {
    std::istringstream in{std::string(ccsim::fuzz::as_text(data, size))};
    auto profile = ccsim::import::read_rank_profile(in, "fuzz.json");
    ccsim::import::KinetoOptions options;
    options.name = "fuzz";
    options.source = "fuzz.json";
    const auto imported = ccsim::import::import_kineto({profile}, options);
    // Every imported operator has its measured duration and a breakdown row.
    if (imported.ranks.size() != imported.trace.programs.size()) __builtin_trap();
    for (std::size_t r = 0; r < imported.ranks.size(); ++r) {
      if (imported.ranks[r].op_ms.size() != imported.trace.programs[r].ops.size()) __builtin_trap();
      for (const auto& op : imported.trace.programs[r].ops) (void)ccsim::import::breakdown_row(imported.trace, op);
    }
    // Read again for that iteration alone (two passes, the other events not kept): it imports
    // too, the same iteration, and every event is kept or counted as dropped.
    std::istringstream again{std::string(ccsim::fuzz::as_text(data, size))};
    const auto window =
        ccsim::import::read_rank_profile(again, "fuzz.json", ccsim::import::ProfileWindow::iteration(-1));
    if (window.events.size() + window.dropped != profile.events.size()) __builtin_trap();
    const auto windowed = ccsim::import::import_kineto({window}, options);
    if (windowed.ranks.at(0).iteration != imported.ranks.at(0).iteration) __builtin_trap();
    if (windowed.ranks.at(0).outside_iteration != imported.ranks.at(0).outside_iteration) __builtin_trap();
  });
  return 0;
}
