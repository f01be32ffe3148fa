#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace ccsim::toml {

/// Translates a TOML document (read with cpptoml) into the JSON text of the same tree, each
/// member on the line it has in the TOML file, so that a reader written for JSON
/// (core/json_reader.hpp) reads TOML too, with the same checks and the same messages naming
/// file, line and field path. Tables become objects, arrays of tables arrays of objects; the
/// members of a table keep their file order (the order of their first lines). Items of an
/// array take the line of their key. The tables named in `flat` (by their last key, such as
/// "set") hold free-form keys with dots: nested tables under them become dotted keys, so that
/// `inter.bandwidth = [...]` and `"inter.bandwidth" = [...]` mean the same. Integers keep
/// their digits, floats are written as the shortest text that reads back the same double.
/// TOML syntax errors, dates and times (no ccsim field takes one) and non-finite floats are
/// InputErrors naming the file and line.
std::string to_json_text(std::string_view text, const std::string& file,
                         std::initializer_list<std::string_view> flat = {});

/// Whether a path names a TOML file (ends in ".toml").
bool is_toml_path(std::string_view path);

}  // namespace ccsim::toml
