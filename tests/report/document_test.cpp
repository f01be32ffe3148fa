#include <catch2/catch.hpp>

#include <stdexcept>

#include "report/document.hpp"

using namespace ccsim;

TEST_CASE("a report document renders the same blocks as Markdown and as HTML", "[report][document]") {
  report::Document doc("run <1> & more");
  doc.heading(2, "Summary");
  doc.paragraph("a | b, *not bold*");
  doc.list({"one", "two_2"});
  doc.code("ccsim report t.json -o 'my dir'");
  doc.table({"what", "ms"}, {{"all_reduce", "1.500"}, {"a|b", "2.000"}}, {false, true});
  doc.image("breakdown.png", "Time \"per\" kind");
  CHECK(doc.markdown() ==
        "# run \\<1> & more\n"
        "\n## Summary\n"
        "\na \\| b, \\*not bold\\*\n"
        "\n- one\n- two\\_2\n"
        "\n```\nccsim report t.json -o 'my dir'\n```\n"
        "\n| what | ms |\n| --- | ---: |\n| all\\_reduce | 1.500 |\n| a\\|b | 2.000 |\n"
        "\n![Time \"per\" kind](breakdown.png)\n");
  const std::string html = doc.html();
  CHECK(html.find("<title>run &lt;1&gt; &amp; more</title>") != std::string::npos);
  CHECK(html.find("<h2>Summary</h2>\n<p>a | b, *not bold*</p>\n<ul>\n<li>one</li>\n<li>two_2</li>\n</ul>\n") !=
        std::string::npos);
  CHECK(html.find("<pre><code>ccsim report t.json -o 'my dir'</code></pre>") != std::string::npos);
  CHECK(html.find("<tr><td>a|b</td><td class=\"n\">2.000</td></tr>") != std::string::npos);
  CHECK(html.find("<img src=\"breakdown.png\" alt=\"Time &quot;per&quot; kind\"/>") != std::string::npos);
  CHECK(html.substr(html.size() - 16) == "</body>\n</html>\n");
}

TEST_CASE("a code block's fence is longer than any backtick run inside it", "[report][document]") {
  report::Document doc("t");
  doc.code("a ``` b");
  CHECK(doc.markdown() == "# t\n\n````\na ``` b\n````\n");
}

TEST_CASE("a table row of the wrong width is a programming error", "[report][document]") {
  report::Document doc("t");
  CHECK_THROWS_AS(doc.table({"a", "b"}, {{"1"}}, {}), std::logic_error);
}
