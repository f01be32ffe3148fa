// What `ccsim measure` is asked to measure (measure/selection.hpp), checked before any process
// starts: lists, sizes, groups and layouts, and the messages that name the option at fault.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "measure/selection.hpp"

using namespace ccsim;

namespace {

/// The message of the error apply_selection throws for `selection`, or "no error".
std::string error_of(const measure::Selection& selection) {
  measure::MeasureOptions options;
  try {
    measure::apply_selection(selection, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("the default selection: all_reduce by MPI and the ring, sizes 1 KiB to 64 MiB by x4", "[measure]") {
  measure::MeasureOptions options;
  measure::apply_selection(measure::Selection{}, options);
  CHECK(options.ops == std::vector<collective::Collective>{collective::Collective::kAllReduce});
  CHECK(options.algorithms == std::vector<std::string>{"mpi", "ring"});
  CHECK(options.transports == std::vector<std::string>{"mpi"});
  CHECK(options.groups == std::vector<std::string>{"world"});
  // 1 KiB x 4^k up to 64 MiB: 2^10, 2^12, ..., 2^26
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = 1024; s <= (64u << 20); s *= 4) sizes.push_back(s);
  CHECK(options.sizes == sizes);
}

TEST_CASE("size lists: a range with a factor, a list of sizes, and what is refused", "[measure]") {
  CHECK(measure::parse_size_list("1KiB:8KiB", "--sizes") == std::vector<std::uint64_t>{1024, 2048, 4096, 8192});
  CHECK(measure::parse_size_list("4KiB,1MiB", "--sizes") == std::vector<std::uint64_t>{4096, 1 << 20});
  CHECK_THROWS_WITH(measure::parse_size_list("8KiB:1KiB", "--sizes"),
                    "command line: field '--sizes': expected 0 < FROM <= TO, got \"8KiB:1KiB\"");
  CHECK_THROWS_WITH(measure::parse_size_list("1KiB:8KiB:3", "--sizes"),
                    "command line: field '--sizes': expected a factor x2, x4, ..., got \"3\"");
  measure::Selection odd;
  odd.sizes = "6";
  CHECK(error_of(odd) ==
        "command line: field '--sizes': expected sizes that are a positive multiple of 4 bytes (fp32), got 6");
}

TEST_CASE("a selection names the option at fault and lists the choices", "[measure]") {
  measure::Selection none;
  none.ops = ",";
  CHECK(error_of(none) ==
        "command line: field '--op': expected at least one of all_reduce, all_gather, reduce_scatter, got \",\"");
  measure::Selection typo;
  typo.ops = "allreduce";
  CHECK(error_of(typo) ==
        "command line: field '--op': unknown collective \"allreduce\"; did you mean all_reduce? "
        "choices: all_reduce, all_gather, reduce_scatter");
  measure::Selection group;
  group.groups = "world,ep";
  CHECK_THAT(error_of(group), Catch::Matchers::StartsWith("command line: field '--groups': unknown group kind \"ep\""));
  measure::Selection layout;
  layout.layout = "tp=0";
  CHECK(error_of(layout) == "command line: field '--layout': expected tp=N, pp=N or dp=N with N >= 1, got \"tp=0\"");
}

TEST_CASE("an algorithm must run on one of the collectives asked for", "[measure]") {
  measure::Selection s;
  s.ops = "all_gather";
  s.algorithms = "recursive-doubling";
  CHECK_THAT(error_of(s), Catch::Matchers::StartsWith("command line: field '--algo': \"recursive-doubling\" runs on "
                                                      "none of the collectives of --op (all_gather): it is an "
                                                      "algorithm of all_reduce"));
  measure::Selection layout;
  layout.layout = "tp=2,dp=2";
  measure::MeasureOptions options;
  measure::apply_selection(layout, options);
  CHECK(options.layout.tp == 2);
  CHECK(options.layout.pp == 1);
  CHECK(options.layout.dp == 2);
}
