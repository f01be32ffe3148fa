#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ccsim::cli {

/// Adds to every option of `app` and its subcommands that takes a value a check that the
/// value is not empty and is UTF-8: an empty --compress or --platform would otherwise read as
/// "not given", and every value may reach a JSON report, which must be UTF-8. A failed check
/// is a usage error (kUsage), naming the option. Call it once all options exist.
void check_option_values(CLI::App& app);

/// The check of an option with a fixed set of values (instead of CLI::IsMember): another value
/// is refused as '--collective: unknown value "allreduce"; did you mean all_reduce? choices:
/// all_reduce' (no "did you mean" when no choice is close). --help shows {a,b,c}.
CLI::Validator one_of(std::vector<std::string> choices);

/// The check of the keys of a KEY=VALUE option (--set): an unknown KEY is refused when the
/// command line is parsed, as 'unknown key "inter.bandwith"; did you mean inter.bandwidth?
/// valid keys: ...' (no "did you mean" when no key is close). The value, and a text without
/// '=', are the command's to check.
CLI::Validator key_of(std::vector<std::string> keys);

/// Adds key_of(keys) to every option named `name` ("--set") of `app` and its subcommands.
/// Call it once all options exist.
void check_keys_of(CLI::App& app, const std::string& name, const std::vector<std::string>& keys);

/// Installs how `app` reports a malformed command line, as every other error of the program
/// reads: "PROGRAM: error: MESSAGE" then "Run with --help for more information.". MESSAGE is
/// CLI11's in plain words ("--iterations: expected a value", not "1 required FLOAT missing";
/// "expected a command: replay, ..."); an unknown option reads "unknown option --iteration;
/// did you mean --iterations?" and an unknown subcommand "unknown command replya; did you
/// mean replay?". The exit code is the caller's: kUsage.
void report_usage_errors(CLI::App& app);

}  // namespace ccsim::cli
