#pragma once

#include <string>
#include <vector>

namespace ccsim::report {

/// A report as a list of blocks (headings, paragraphs, lists, tables, code, images), written once
/// and rendered both as Markdown and as HTML, so that the two carry exactly the same content.
class Document {
 public:
  explicit Document(std::string title) : title_(std::move(title)) {}

  void heading(int level, std::string text);  ///< level 2 or 3 (the title is level 1)
  void paragraph(std::string text);
  void list(std::vector<std::string> items);
  void code(std::string text);  ///< verbatim, e.g. a command line
  /// A table; `numeric[i]` right-aligns column i. Every row has the header's width (else throws).
  void table(std::vector<std::string> header, std::vector<std::vector<std::string>> rows, std::vector<bool> numeric);
  void image(std::string path, std::string caption);  ///< path relative to the document

  /// CommonMark with GitHub tables; '|', '\' and '`' in cells and text are escaped.
  std::string markdown() const;
  /// One self-contained, well-formed (XML-parsable) HTML5 page; text is escaped.
  std::string html() const;

 private:
  enum class Kind { kHeading, kParagraph, kList, kCode, kTable, kImage };
  struct Block {
    Kind kind = Kind::kParagraph;
    int level = 0;
    std::string text;
    std::vector<std::string> items;  ///< list items, table header
    std::vector<std::vector<std::string>> rows;
    std::vector<bool> numeric;
  };
  std::string title_;
  std::vector<Block> blocks_;
};

/// Text escaped for HTML element content and attribute values (&, <, >, ").
std::string html_escape(const std::string& text);

}  // namespace ccsim::report
