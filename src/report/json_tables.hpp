#pragma once

#include <functional>
#include <iosfwd>

#include <nlohmann/json.hpp>

namespace ccsim::report {

/// Makes the tables of a report one at a time, handing each to `emit`.
using JsonTables = std::function<void(const std::function<void(const nlohmann::ordered_json&)>& emit)>;

/// Writes the JSON document `head` (an object) with a last key "tables" whose elements
/// `tables` makes one at a time, in the layout of nlohmann's dump(2), and a newline: the text
/// of the whole document dumped at once, without the whole document in memory.
void write_json_with_tables(std::ostream& out, const nlohmann::ordered_json& head, const JsonTables& tables);

}  // namespace ccsim::report
