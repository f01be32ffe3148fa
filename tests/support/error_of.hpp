#pragma once

#include <string>
#include <utility>

#include "core/input_error.hpp"

// One helper for every test that checks an error message: run the work, return the message of
// the error it throws, or "no error" when it throws none (so a CHECK on the message fails
// with a readable expansion instead of an uncaught exception or an empty string).
namespace ccsim::test {

/// What `work()` throws as `Exception` (InputError by default), or `no_error` when it returns.
template <class Exception = InputError, class Work>
std::string message_of(Work&& work, std::string no_error = "no error") {
  try {
    std::forward<Work>(work)();
  } catch (const Exception& e) {
    return e.what();
  }
  return no_error;
}

}  // namespace ccsim::test
