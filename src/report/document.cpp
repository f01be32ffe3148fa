#include "report/document.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "core/markup.hpp"

namespace ccsim::report {
namespace {

// Inline Markdown: characters that would start markup are escaped, so text stays text.
std::string md_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '`' || c == '*' || c == '_' || c == '|' || c == '<' || c == '[' || c == ']') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

// A fence longer than any run of backticks in the text.
std::string fence_for(const std::string& text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

}  // namespace

std::string html_escape(const std::string& text) { return xml_escape(text); }

void Document::heading(int level, std::string text) {
  Block b;
  b.kind = Kind::kHeading;
  b.level = std::clamp(level, 2, 3);
  b.text = std::move(text);
  blocks_.push_back(std::move(b));
}

void Document::paragraph(std::string text) {
  Block b;
  b.kind = Kind::kParagraph;
  b.text = std::move(text);
  blocks_.push_back(std::move(b));
}

void Document::list(std::vector<std::string> items) {
  Block b;
  b.kind = Kind::kList;
  b.items = std::move(items);
  blocks_.push_back(std::move(b));
}

void Document::code(std::string text) {
  Block b;
  b.kind = Kind::kCode;
  b.text = std::move(text);
  blocks_.push_back(std::move(b));
}

void Document::table(std::vector<std::string> header, std::vector<std::vector<std::string>> rows,
                     std::vector<bool> numeric) {
  numeric.resize(header.size(), false);
  for (const auto& row : rows) {
    if (row.size() != header.size()) {
      throw std::logic_error(
          fmt::format("report table: a row of {} cells under a header of {}", row.size(), header.size()));
    }
  }
  Block b;
  b.kind = Kind::kTable;
  b.items = std::move(header);
  b.rows = std::move(rows);
  b.numeric = std::move(numeric);
  blocks_.push_back(std::move(b));
}

void Document::image(std::string path, std::string caption) {
  Block b;
  b.kind = Kind::kImage;
  b.text = std::move(path);
  b.items = {std::move(caption)};
  blocks_.push_back(std::move(b));
}

std::string Document::markdown() const {
  std::string out = fmt::format("# {}\n", md_escape(title_));
  for (const Block& b : blocks_) {
    out += "\n";
    switch (b.kind) {
      case Kind::kHeading:
        out += fmt::format("{} {}\n", std::string(static_cast<std::size_t>(b.level), '#'), md_escape(b.text));
        break;
      case Kind::kParagraph:
        out += md_escape(b.text) + "\n";
        break;
      case Kind::kList:
        for (const std::string& item : b.items) out += fmt::format("- {}\n", md_escape(item));
        break;
      case Kind::kCode: {
        const std::string fence = fence_for(b.text);
        out += fmt::format("{}\n{}\n{}\n", fence, b.text, fence);
        break;
      }
      case Kind::kTable: {
        auto line = [&](const std::vector<std::string>& cells) {
          out += "|";
          for (const std::string& c : cells) out += fmt::format(" {} |", md_escape(c));
          out += "\n";
        };
        line(b.items);
        out += "|";
        for (bool n : b.numeric) out += n ? " ---: |" : " --- |";
        out += "\n";
        for (const auto& row : b.rows) line(row);
        break;
      }
      case Kind::kImage:
        out += fmt::format("![{}]({})\n", md_escape(b.items.front()), b.text);
        break;
    }
  }
  return out;
}

std::string Document::html() const {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<title>" +
      html_escape(title_) +
      "</title>\n"
      "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
      "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.2em .6em}"
      "td.n,th.n{text-align:right}pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap}"
      "img{max-width:100%}</style>\n</head>\n<body>\n";
  out += "<h1>" + html_escape(title_) + "</h1>\n";
  for (const Block& b : blocks_) {
    switch (b.kind) {
      case Kind::kHeading:
        out += fmt::format("<h{0}>{1}</h{0}>\n", b.level, html_escape(b.text));
        break;
      case Kind::kParagraph:
        out += "<p>" + html_escape(b.text) + "</p>\n";
        break;
      case Kind::kList:
        out += "<ul>\n";
        for (const std::string& item : b.items) out += "<li>" + html_escape(item) + "</li>\n";
        out += "</ul>\n";
        break;
      case Kind::kCode:
        out += "<pre><code>" + html_escape(b.text) + "</code></pre>\n";
        break;
      case Kind::kTable: {
        out += "<table>\n<thead><tr>";
        for (std::size_t i = 0; i < b.items.size(); ++i) {
          out += fmt::format("<th{}>{}</th>", b.numeric[i] ? " class=\"n\"" : "", html_escape(b.items[i]));
        }
        out += "</tr></thead>\n<tbody>\n";
        for (const auto& row : b.rows) {
          out += "<tr>";
          for (std::size_t i = 0; i < row.size(); ++i) {
            out += fmt::format("<td{}>{}</td>", b.numeric[i] ? " class=\"n\"" : "", html_escape(row[i]));
          }
          out += "</tr>\n";
        }
        out += "</tbody>\n</table>\n";
        break;
      }
      case Kind::kImage:
        out += fmt::format("<figure><img src=\"{0}\" alt=\"{1}\"/><figcaption>{1}</figcaption></figure>\n",
                           html_escape(b.text), html_escape(b.items.front()));
        break;
    }
  }
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace ccsim::report
