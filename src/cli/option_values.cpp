#include "cli/option_values.hpp"

#include <string>

#include <fmt/format.h>

#include "core/utf8.hpp"

namespace ccsim::cli {
namespace {

/// Why CLI11 should refuse a command-line value, or "" to accept it.
std::string check_value(const std::string& value) {
  if (value.empty()) return "expected a value, got an empty string";
  if (auto bad = invalid_utf8_at(value)) {
    return fmt::format("expected UTF-8 text, got the byte 0x{:02X} at byte {}", static_cast<unsigned char>(value[*bad]),
                       *bad);
  }
  return "";
}

}  // namespace

void check_option_values(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_expected_min() > 0) option->check(CLI::Validator(check_value, "", "VALUE"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) check_option_values(*sub);
}

}  // namespace ccsim::cli
