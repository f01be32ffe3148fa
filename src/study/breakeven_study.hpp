#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collective/breakeven.hpp"
#include "compress/compress_spec.hpp"
#include "compress/compressor_model.hpp"
#include "core/units.hpp"
#include "study/data_lookup.hpp"
#include "topology/platform.hpp"

namespace ccsim::study {

/// What `ccsim breakeven` asks of a platform and a compressor.
struct BreakevenRequest {
  std::string plain_algorithm = "ring";  ///< the plain all_reduce to beat
  std::string algorithm = "auto";        ///< the compressed one; auto follows the compressor's kind
  DType dtype = DType::kF32;
  std::string at = "64MiB";  ///< the buffer the speedup is given at, as typed (--at)
  /// Group sizes, 2 to kMaxBreakevenRanks; empty: 2, 4, ... up to what the platform holds, at most 1024.
  std::vector<int> sizes;
  bool intra = false;  ///< ranks inside one node; else one rank per node
};

/// The largest group a break-even is computed for: a schedule holds O(p^2) steps.
inline constexpr int kMaxBreakevenRanks = 1024;

/// One group size: the algorithms, where compression starts to pay and what it gains.
struct BreakevenRow {
  int ranks = 0;
  std::string plain_algorithm;
  std::string compressed_algorithm;  ///< auto resolved
  collective::BreakEven even;        ///< bytes: +inf never, <= 0 always
  double speedup_at = 0;             ///< plain over compressed time at `at` bytes
};

/// The break-even of compressed all_reduce on a platform's links, by the closed forms of the
/// schedules (alpha-beta-gamma plus compression terms, no contention).
struct BreakevenStudy {
  std::string platform;             ///< its name
  BreakevenRequest request;         ///< as asked
  compress::Evaluation evaluation;  ///< the compressor on the platform's accelerator
  bool homomorphic = false;
  std::uint64_t at_bytes = 0;
  /// The links of the group: between accelerator 0 and one of the next node (one rank per
  /// node) or of its own node (--intra).
  topology::Network::PathCost path;
  double reduce_Bps = 0;  ///< the accelerator's reduction rate
  std::vector<BreakevenRow> rows;
};

/// `compressor` with `query`: the compressor model and its settings (--compress). Throws
/// InputError naming the option: `at` not whole elements of 1 B to 1 PiB (--at), a platform
/// without two accelerators in different nodes (--platform) or in one node (--intra), a
/// group size out of range or beyond what the platform holds (--sizes).
BreakevenStudy study_breakeven(const topology::Platform& platform, const compress::CompressorModel& compressor,
                               const compress::Query& query, const BreakevenRequest& request);

/// `ccsim breakeven` as typed: the platform and the compressor by name, the dtype in words, and
/// the rest of the request.
struct BreakevenArgs {
  std::string platform;        ///< a preset NAME or a platform FILE
  std::string compress;        ///< NAME[:key=value,...] (compress::parse_compress_spec)
  std::string dtype = "fp32";  ///< the request's dtype
  BreakevenRequest request;
};

/// study_breakeven of `args`: the platform and the compressor's model found through `lookup`,
/// the dtype read (an InputError naming --dtype).
BreakevenStudy study_breakeven(const BreakevenArgs& args, const DataLookup& lookup);

/// The text table of `s` for the compressor `compress` (as typed): the compressor, the links,
/// then one row per group size (where compression pays: a size, "never" or "always").
std::string breakeven_text(const BreakevenStudy& s, const std::string& compress);

/// `s` as JSON; a row's "pays" says never, always or above, and "pays_above_bytes" is null
/// unless above (JSON has no infinity).
std::string breakeven_json(const BreakevenStudy& s, const std::string& compress);

}  // namespace ccsim::study
