// The JSON reader of src/core: parse, then read every value the way data-file readers do
// (numbers as double and as integers, strings, messages quoting values).

#include "core/json.hpp"
#include "core/json_reader.hpp"
#include "fuzz_target.hpp"

namespace {

using namespace ccsim;

void read_all(const json::Value& value, const std::string& path) {
  const SourceRef where{"fuzz.json", value.line(), path};
  fuzz::input_errors_only([&] { json::as_number(value, where); });
  fuzz::input_errors_only([&] { json::as_integer(value, where); });
  fuzz::input_errors_only([&] { json::as_non_negative_integer(value, where); });
  fuzz::input_errors_only([&] { json::as_string(value, where); });
  (void)value.describe();
  (void)json::got(value);
  for (std::size_t i = 0; i < value.items().size(); ++i) read_all(value.items()[i], json::item_path(path, i));
  if (value.is_object()) {
    json::ObjectReader object(value, "fuzz.json", path);
    for (const auto& [key, member] : value.members()) {
      // Keys are unique, so each is found as itself (optional() reads null as absent); once
      // all are read, none is unknown.
      const json::OptionalField found = object.optional(key);
      if (value.find(key) != &member || (found ? &*found : nullptr) != (member.is_null() ? nullptr : &member))
        __builtin_trap();
      read_all(member, object.member_path(key));
    }
    object.finish();
  }
}

}  // namespace

CCSIM_FUZZ_TARGET(json) {
  fuzz::input_errors_only([&] { read_all(json::parse(fuzz::as_text(data, size), "fuzz.json"), ""); });
  return 0;
}
