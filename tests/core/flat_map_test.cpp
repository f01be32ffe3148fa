#include <catch2/catch.hpp>

#include <cstdint>
#include <unordered_map>

#include "core/flat_map.hpp"

using ccsim::FlatMap64;

TEST_CASE("a flat map finds what it holds, through growth, as std::unordered_map does", "[core]") {
  FlatMap64<int> flat;
  std::unordered_map<std::uint64_t, int> reference;
  CHECK(flat.find(7) == nullptr);
  // Keys that collide in the low bits (multiples of 2^32) and neighbours, inserted twice.
  std::uint64_t state = 1;
  for (int i = 0; i < 20000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::uint64_t key = i % 3 == 0 ? (state >> 40) << 32 : (i % 3 == 1 ? std::uint64_t(i) : state >> 1);
    const auto [value, fresh] = flat.try_emplace(key, i);
    const auto [it, ref_fresh] = reference.try_emplace(key, i);
    REQUIRE(fresh == ref_fresh);
    REQUIRE(*value == it->second);
  }
  CHECK(flat.size() == reference.size());
  for (const auto& [key, value] : reference) {
    const int* found = flat.find(key);
    REQUIRE(found != nullptr);
    CHECK(*found == value);
  }
  CHECK(flat.find(FlatMap64<int>::kEmpty - 1) == nullptr);
  // Cleared, it holds nothing and takes keys again.
  flat.clear();
  CHECK(flat.size() == 0);
  CHECK(flat.find(reference.begin()->first) == nullptr);
  CHECK(flat.try_emplace(reference.begin()->first, -1).second);
  CHECK(*flat.find(reference.begin()->first) == -1);
}
