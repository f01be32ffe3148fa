#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "core/parse.hpp"
#include "core/units.hpp"

using namespace ccsim;

TEST_CASE("parse_double accepts whole numbers only", "[parse]") {
  CHECK(parse_double("1.5") == 1.5);
  CHECK(parse_double("-2e3") == -2000.0);
  CHECK(parse_double("+4") == 4.0);
  CHECK_FALSE(parse_double(""));
  CHECK_FALSE(parse_double("1.5x"));
  CHECK_FALSE(parse_double(" 1"));
  CHECK_FALSE(parse_double("inf"));
  CHECK_FALSE(parse_double("nan"));
  CHECK_FALSE(parse_double("1e999"));
}

TEST_CASE("parse_int and parse_uint check range", "[parse]") {
  CHECK(parse_int("-12") == -12);
  CHECK_FALSE(parse_int("12.0"));
  CHECK_FALSE(parse_int("99999999999999999999"));
  CHECK(parse_uint("18446744073709551615") == 18446744073709551615ull);
  CHECK_FALSE(parse_uint("-1"));
}

TEST_CASE("parse_bytes reads units", "[parse]") {
  CHECK(parse_bytes("4096") == 4096u);
  CHECK(parse_bytes("16MiB") == 16u * 1024 * 1024);
  CHECK(parse_bytes("1.5GB") == 1500000000u);
  CHECK(parse_bytes("512 KiB") == 512u * 1024);
  CHECK(parse_bytes("8kB") == 8000u);
  CHECK(parse_bytes("3B") == 3u);
  CHECK_FALSE(parse_bytes("1.5B"));
  CHECK_FALSE(parse_bytes("MiB"));
  CHECK_FALSE(parse_bytes("-1MiB"));
  CHECK_THROWS_WITH(
      parse_bytes_or_throw("12 parsecs", "command line", "--size"),
      "command line: field '--size': expected a byte count such as 4096, 16MiB or 1.5GB, got \"12 parsecs\"");
}

TEST_CASE("dtype names", "[units]") {
  CHECK(parse_dtype("float16") == DType::kF16);
  CHECK(parse_dtype("bf16") == DType::kBF16);
  CHECK(dtype_bytes(DType::kF64) == 8);
  CHECK(dtype_name(DType::kI8) == "int8");
  CHECK_FALSE(parse_dtype("fp8"));
}
