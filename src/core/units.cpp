#include "core/units.hpp"

#include <array>
#include <utility>

namespace ccsim {

int dtype_bytes(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return 4;
    case DType::kF16:
      return 2;
    case DType::kBF16:
      return 2;
    case DType::kF64:
      return 8;
    case DType::kI32:
      return 4;
    case DType::kI8:
      return 1;
    case DType::kU8:
      return 1;
  }
  return 1;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "fp32";
    case DType::kF16:
      return "fp16";
    case DType::kBF16:
      return "bf16";
    case DType::kF64:
      return "fp64";
    case DType::kI32:
      return "int32";
    case DType::kI8:
      return "int8";
    case DType::kU8:
      return "uint8";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, DType>, 14> kNames = {{
      {"fp32", DType::kF32},
      {"float32", DType::kF32},
      {"float", DType::kF32},
      {"fp16", DType::kF16},
      {"float16", DType::kF16},
      {"half", DType::kF16},
      {"bf16", DType::kBF16},
      {"bfloat16", DType::kBF16},
      {"fp64", DType::kF64},
      {"float64", DType::kF64},
      {"int32", DType::kI32},
      {"int8", DType::kI8},
      {"uint8", DType::kU8},
      {"double", DType::kF64},
  }};
  for (const auto& [name, dtype] : kNames) {
    if (name == text) return dtype;
  }
  return std::nullopt;
}

std::string_view dtype_choices() { return "fp32, fp16, bf16, fp64, int32, int8, uint8"; }

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names{"fp32", "fp16", "bf16", "fp64", "int32", "int8", "uint8"};
  return names;
}

}  // namespace ccsim
