#include "core/input_error.hpp"

#include <fmt/format.h>

namespace ccsim {
namespace {

std::string compose(const std::string& file, int line, const std::string& field, const std::string& detail) {
  std::string out = file;
  if (line > 0) out += fmt::format(":{}", line);
  out += ": ";
  if (!field.empty()) out += fmt::format("field '{}': ", field);
  out += detail;
  return out;
}

}  // namespace

InputError::InputError(std::string file, int line, std::string field, std::string detail)
    : std::runtime_error(compose(file, line, field, detail)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      detail_(std::move(detail)) {}

void SourceRef::fail(const std::string& detail) const { throw InputError(file, line, field, detail); }

}  // namespace ccsim
