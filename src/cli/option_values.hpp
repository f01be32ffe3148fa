#pragma once

#include <CLI/CLI.hpp>

namespace ccsim::cli {

/// Adds to every option of `app` and its subcommands that takes a value a check that the
/// value is not empty and is UTF-8: an empty --compress or --platform would otherwise read as
/// "not given", and every value may reach a JSON report, which must be UTF-8. A failed check
/// is a usage error (kUsage), naming the option. Call it once all options exist.
void check_option_values(CLI::App& app);

}  // namespace ccsim::cli
