#include "cli/option_values.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <regex>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/parse.hpp"
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

/// The option of the command line's deepest subcommand, or of a parent, named `name` ("--seq").
const CLI::Option* find_option(const CLI::App& root, const std::string& name) {
  for (const CLI::App* at = &deepest(root); at != nullptr; at = at->get_parent()) {
    for (const CLI::Option* option : at->get_options()) {
      if (option->get_name() == name) return option;
    }
  }
  return nullptr;
}

/// What a value of option `name` is, in words, from its CLI11 type name (FLOAT, INT, ...);
/// `otherwise` for another type or no such option.
std::string type_in_words(const CLI::App& root, const std::string& name, const std::string& otherwise) {
  const CLI::Option* option = find_option(root, name);
  // get_type_name() appends the validators' descriptions: "INT:INT in [1 - 4]".
  const std::string full = option != nullptr ? option->get_type_name() : "";
  const std::string type = full.substr(0, full.find(':'));
  if (type == "FLOAT") return "a number";
  if (type == "INT") return "an integer";
  if (type == "UINT") return "a non-negative integer";
  if (type == "BOOLEAN") return "true or false";
  return otherwise;
}

/// A number of CLI::Range's message ("16777216", "0.000000") as the messages of ccsim write it.
std::string number_in_words(const std::string& text) {
  const std::optional<double> x = parse_double(text);
  if (!x) return text;
  if (std::abs(*x) < 1e15 && *x == std::trunc(*x)) return fmt::format("{}", static_cast<long long>(*x));
  return fmt::format("{:g}", *x);
}

/// CLI11's message in the words of every other error of ccsim ("--iterations: expected a
/// value", not "--iterations: 1 required FLOAT missing"); CLI11's own where none applies.
std::string plain_words(const CLI::App& root, const CLI::Error& error) {
  std::string text = error.what();
  static const std::regex kMissing(R"(^(\S+): 1 required \S+ missing$)");
  static const std::regex kCount(R"(^(\S+): (\d+) required \S+ missing$)");
  static const std::regex kAtLeast(R"(^(\S+): At least (\d+) required but received (\d+)$)");
  static const std::regex kAtMost(R"(^(\S+): At Most (\d+) required but received (\d+)$)");
  static const std::regex kConvert(R"(^Could not convert: (\S+) = (.*)$)");
  static const std::regex kRange(R"(^(\S+): Value (.*) not in range (\S+) to (\S+)$)");
  static const std::regex kExtras(R"(^The following arguments? (?:was|were) not expected: .*$)");
  std::smatch m;
  if (std::regex_match(text, m, kMissing)) return fmt::format("{}: expected a value", m.str(1));
  if (std::regex_match(text, m, kCount)) return fmt::format("{}: expected {} values", m.str(1), m.str(2));
  if (std::regex_match(text, m, kAtLeast)) {
    return fmt::format("{}: expected at least {} values, got {}", m.str(1), m.str(2), m.str(3));
  }
  if (std::regex_match(text, m, kAtMost)) {
    return fmt::format("{}: expected at most {} values, got {}", m.str(1), m.str(2), m.str(3));
  }
  if (std::regex_match(text, m, kConvert)) {
    return fmt::format("{}: expected {}, got \"{}\"", m.str(1), type_in_words(root, m.str(1), "a value"), m.str(2));
  }
  if (std::regex_match(text, m, kRange)) {
    return fmt::format("{}: expected {} from {} to {}, got \"{}\"", m.str(1), type_in_words(root, m.str(1), "a number"),
                       number_in_words(m.str(3)), number_in_words(m.str(4)), m.str(2));
  }
  if (std::regex_match(text, kExtras)) {
    const std::vector<std::string> extras = root.remaining(true);
    return fmt::format("unexpected argument{} {}", extras.size() > 1 ? "s" : "", fmt::join(extras, " "));
  }
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr && text == "A subcommand is required") {
    std::vector<std::string> commands;
    for (const CLI::App* command :
         deepest(root).get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); })) {
      commands.push_back(command->get_name());
    }
    return fmt::format("expected a command: {}", fmt::join(commands, ", "));
  }
  return text;
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
    if (message.empty()) message = plain_words(*root, error);
    return fmt::format("{}: error: {}\nRun with --help for more information.\n", root->get_name(), message);
  });
}

}  // namespace ccsim::cli
