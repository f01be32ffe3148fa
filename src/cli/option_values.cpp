#include "cli/option_values.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/spelling.hpp"
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

/// The subcommand the command line reached last (`app` itself when none).
const CLI::App& deepest(const CLI::App& app) {
  const CLI::App* at = &app;
  for (std::vector<CLI::App*> subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) {
    at = subs.back();
  }
  return *at;
}

/// Every spelling of the options `sub` accepts: its own and those of its parents (CLI11 hands an option a subcommand
/// does not know to the parent).
std::vector<std::string> option_names(const CLI::App& sub) {
  std::vector<std::string> names;
  for (const CLI::App* at = &sub; at != nullptr; at = at->get_parent()) {
    for (const CLI::Option* option : at->get_options()) {
      for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
      for (const std::string& name : option->get_snames()) names.push_back("-" + name);
    }
  }
  return names;
}

/// A message for what CLI11 reports as unexpected arguments or a missing subcommand, when an
/// argument is an option or a command the command line has no place for; "" otherwise.
std::string unknown_argument(const CLI::App& root, const CLI::Error& error) {
  const CLI::App& sub = deepest(root);
  const std::vector<std::string> extras = root.remaining(true);
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    for (const std::string& arg : extras) {
      if (arg.size() < 2 || arg[0] != '-' || (arg[1] >= '0' && arg[1] <= '9') || arg[1] == '.') continue;
      const std::string name = arg.substr(0, arg.find('='));
      return fmt::format("unknown option {}{}", name, did_you_mean(name, option_names(sub)));
    }
    return "";
  }
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr && sub.get_require_subcommand_min() > 0 &&
      sub.get_subcommands().empty() && !extras.empty() && !extras.front().starts_with("-")) {
    std::vector<std::string> commands;
    for (const CLI::App* command : sub.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); })) {
      commands.push_back(command->get_name());
    }
    return fmt::format("unknown command {}{}", extras.front(), did_you_mean(extras.front(), commands));
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

CLI::Validator one_of(std::vector<std::string> choices) {
  const std::string description = fmt::format("{{{}}}", fmt::join(choices, ","));
  return CLI::Validator(
      [choices = std::move(choices)](const std::string& value) -> std::string {
        if (std::find(choices.begin(), choices.end(), value) != choices.end()) return "";
        return fmt::format("unknown value \"{}\"; {}choices: {}", value, did_you_mean(value, choices, "", " "),
                           fmt::join(choices, ", "));
      },
      description);
}

CLI::Validator key_of(std::vector<std::string> keys) {
  return CLI::Validator(
      [keys = std::move(keys)](const std::string& setting) -> std::string {
        const std::size_t eq = setting.find('=');
        if (eq == std::string::npos) return "";  // not KEY=VALUE: the command says what it expects
        const std::string key = setting.substr(0, eq);
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) return "";
        return fmt::format("unknown key \"{}\"; {}valid keys: {}", key, did_you_mean(key, keys, "", " "),
                           fmt::join(keys, ", "));
      },
      "");
}

void check_keys_of(CLI::App& app, const std::string& name, const std::vector<std::string>& keys) {
  if (CLI::Option* option = app.get_option_no_throw(name)) option->check(key_of(keys));
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) check_keys_of(*sub, name, keys);
}

void report_usage_errors(CLI::App& app) {
  app.failure_message([](const CLI::App* root, const CLI::Error& error) {
    std::string message = unknown_argument(*root, error);
    if (message.empty()) message = error.what();
    return message + "\nRun with --help for more information.\n";
  });
}

}  // namespace ccsim::cli
