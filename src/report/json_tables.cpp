#include "report/json_tables.hpp"

#include <ostream>
#include <string>

namespace ccsim::report {

void write_json_with_tables(std::ostream& out, const nlohmann::ordered_json& head, const JsonTables& tables) {
  std::string text = head.dump(2);
  if (head.empty()) {
    out << "{\n  \"tables\": [";
  } else {
    text.resize(text.size() - 2);  // "\n}"
    out << text << ",\n  \"tables\": [";
  }
  bool first = true;
  tables([&](const nlohmann::ordered_json& table) {
    // Indented as an element of the root's "tables" (two levels down); a JSON string holds no
    // raw newline, so every newline of the dump starts a line.
    text = table.dump(2);
    out << (first ? "\n    " : ",\n    ");
    first = false;
    std::size_t from = 0;
    for (std::size_t nl = text.find('\n'); nl != std::string::npos; from = nl + 1, nl = text.find('\n', from)) {
      out.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from));
      out << "    ";
    }
    out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
  });
  out << (first ? "]\n}\n" : "\n  ]\n}\n");
}

}  // namespace ccsim::report
