#pragma once

#include <string>
#include <string_view>

namespace ccsim {

/// Text escaped for XML and HTML element content and double-quoted attribute values:
/// &, <, > and " become entities. Used by the SimGrid platform export and the HTML report.
std::string xml_escape(std::string_view text);

}  // namespace ccsim
