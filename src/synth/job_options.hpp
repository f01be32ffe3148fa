#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "synth/megatron.hpp"

namespace ccsim::synth {

/// The options of a synthesized job as given, before job_parallelism() finishes them: what
/// `trace synth` reads from its command line, and a sweep's synth mode from its settings.
struct JobOptions {
  JobOptions() { par.virtual_stages = 0; }
  Parallelism par;                     ///< virtual_stages 0: the schedule's default
  bool distributed_optimizer = false;  ///< Megatron's name for ZeRO stage 1
  bool allow_oversize = false;         ///< over the accelerator's memory: a warning, not the refusal
};

/// What a job option's value is.
enum class JobOptionKind : std::uint8_t {
  kInteger,  ///< a whole number, `min` to `max`
  kNumber,   ///< a non-negative number
  kFlag,     ///< given or not; a setting takes true or false
  kChoice,   ///< one of `choices`
};

/// One option of a synthesized job: its name, its values, its help and what it sets. The one
/// description of `trace synth`'s job options (the CLI registers them from it) and of the keys
/// of a sweep's synth mode that are trace synth's (study/synth_job.hpp reads them with it).
struct JobOption {
  std::string_view name;  ///< without dashes: "--micro-batches" on a command line
  JobOptionKind kind;
  std::string_view help;                           ///< as `trace synth --help` prints it
  int& (*integer)(JobOptions&) = nullptr;          ///< kInteger: the value it sets
  double& (*number)(JobOptions&) = nullptr;        ///< kNumber: the value it sets
  bool& (*flag)(JobOptions&) = nullptr;            ///< kFlag: the value it sets
  bool flag_value = true;                          ///< kFlag: what giving it sets (false: --no-...)
  std::span<const std::string_view> choices = {};  ///< kChoice: the values, in --help's order
  /// kChoice: sets the value choices[i].
  void (*choose)(JobOptions&, std::size_t i) = nullptr;
  /// kChoice: the value `job` holds (the default, before any option).
  std::string_view (*chosen)(const JobOptions&) = nullptr;
  int min = 0;  ///< kInteger: the smallest value
  int max = 0;  ///< kInteger: the largest value
  /// kInteger: trace synth's parser refuses a value out of range (and --help shows the range);
  /// otherwise check_parallelism (synth/megatron.hpp) does, in its words.
  bool parser_checks_range = false;
  bool show_default = false;  ///< --help shows the default value
};

/// Every job option of `trace synth`, in the order of its --help.
std::span<const JobOption> job_options();

/// The job option named `name` ("micro-batches"), or nullptr.
const JobOption* find_job_option(std::string_view name);

/// Sets `option` of `job` from a setting's text, as a sweep's synth mode gives it: a whole
/// number in the option's range, true or false, a number, one of the choices. Returns why the
/// text is not a value of the option ("expected a whole number 1..1048576, got \"0\"",
/// "expected one of gpipe, 1f1b, interleaved, got \"x\"", with "did you mean"), "" when set.
std::string set_job_option(JobOptions& job, const JobOption& option, std::string_view text);

/// How job options were given, for the words of an error about them.
enum class JobOptionSyntax : std::uint8_t {
  kCommandLine,  ///< trace synth's options: field "--zero" of "command line"
  kSettings,     ///< a sweep's synth settings: field "zero" of "synth"
};

/// The parallelism `job` asks for, finished as `trace synth` finishes it: virtual_stages 2
/// with the interleaved schedule unless given (Megatron's interleaved schedule is for 2 or more
/// chunks), else 1; the distributed optimizer is ZeRO stage 1 (zero 1; an InputError when zero
/// 2 or 3 is given too, in the words of `syntax`). The rest is check_parallelism's to check.
Parallelism job_parallelism(const JobOptions& job, JobOptionSyntax syntax);

}  // namespace ccsim::synth
