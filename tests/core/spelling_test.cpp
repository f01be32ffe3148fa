// "Did you mean" (core/spelling.hpp): edit distances by hand, and which candidate is offered.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/spelling.hpp"

using ccsim::closest_spelling;
using ccsim::did_you_mean;
using ccsim::edit_distance;

TEST_CASE("edit distance counts insertions, deletions, substitutions and swaps", "[core][spelling]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("allreduce", "all_reduce") == 1);      // an insertion
  CHECK(edit_distance("--iterations", "--iteration") == 1);  // a deletion
  CHECK(edit_distance("jsan", "json") == 1);                 // a substitution
  CHECK(edit_distance("replya", "replay") == 1);             // a swap of neighbours
  CHECK(edit_distance("kitten", "sitting") == 3);            // the textbook example
  CHECK(edit_distance("ca", "abc") == 3);                    // no edit of a swapped pair again
}

TEST_CASE("the closest candidate is offered only when it is a likely misspelling", "[core][spelling]") {
  const std::vector<std::string> formats{"text", "csv", "json"};
  CHECK(closest_spelling("jsn", formats) == std::optional<std::string>("json"));
  CHECK(closest_spelling("xml", formats) == std::nullopt);   // 3 edits from csv: no guess
  CHECK(closest_spelling("json", formats) == std::nullopt);  // a valid value needs no suggestion
  CHECK(closest_spelling("allreduce", {"all_reduce", "all_gather"}) == std::optional<std::string>("all_reduce"));
  CHECK(closest_spelling("--iteration", {"--help", "--iterations", "--price"}) ==
        std::optional<std::string>("--iterations"));
  // Of equally close candidates the first is offered, whatever the order of a hash.
  CHECK(closest_spelling("cat", {"bat", "hat"}) == std::optional<std::string>("bat"));
  CHECK(closest_spelling("x", {}) == std::nullopt);
  // One letter for another is a different name, not a misspelling; one letter more is one.
  CHECK(closest_spelling("x", {"n", "s"}) == std::nullopt);
  CHECK(closest_spelling("x", {"xy"}) == std::optional<std::string>("xy"));
}

TEST_CASE("did you mean is one clause, wrapped as the message needs", "[core][spelling]") {
  const std::vector<std::string> keys{"eb", "bits", "range"};
  CHECK(did_you_mean("rnage", keys) == "; did you mean range?");
  CHECK(did_you_mean("rnage", keys, "", " ") == "did you mean range? ");
  CHECK(did_you_mean("level", keys) == "");  // nothing close: no clause, no punctuation
  CHECK(did_you_mean("range", keys) == "");  // a valid name
}
