#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compress/compressor_cost.hpp"
#include "core/units.hpp"

namespace ccsim::compress {

/// What a compressor does to the numbers; it decides how settings are named and how the ratio follows.
enum class Kind : std::uint8_t {
  kErrorBounded,  ///< every element within an error bound (SZ family, ZFP); ratio measured per bound
  kQuantizer,     ///< fixed bits per element plus a scale per block; ratio follows from bits
  kSparsifier,    ///< keeps a fraction of the elements (top-k); ratio follows from density
};

/// How an error bound is read: relative to the value range of the data (REL) or absolute (ABS).
enum class ErrorMode : std::uint8_t { kRel, kAbs };

/// How a model's throughputs carry over to hardware other than the one they were measured on.
enum class Transfer : std::uint8_t {
  kNone,         ///< used unscaled (with a note saying where they were measured)
  kMemoryBound,  ///< throughputs scale with the memory bandwidth available to the codec
};

/// Where compression runs. On the host, every compress and decompress also copies the raw
/// bytes between accelerator and host memory.
enum class Placement : std::uint8_t { kAccelerator, kHost };

std::string_view kind_name(Kind kind);              ///< "error-bounded", "quantizer", "sparsifier"
std::string_view error_mode_name(ErrorMode mode);   ///< "REL", "ABS"
std::string_view placement_name(Placement where);   ///< "accelerator", "host"
std::string_view transfer_name(Transfer transfer);  ///< "none", "memory-bound"

/// One measured (or estimated) operating point of a compressor, as listed in its model file.
/// Which of error_bound / bits / density is meaningful depends on the Kind.
struct Setting {
  double error_bound = 0;           ///< kErrorBounded, in the model's ErrorMode
  int bits = 0;                     ///< kQuantizer: bits per element
  double density = 0;               ///< kSparsifier: fraction of the elements kept
  double ratio = 0;                 ///< kErrorBounded: raw / compressed bytes, on the model's dtype
  std::int64_t block_elements = 0;  ///< kQuantizer: elements sharing one scale
  int scale_bytes = 0;              ///< kQuantizer: bytes of one scale
  double compress_Bps = 0;          ///< raw bytes per second
  double decompress_Bps = 0;        ///< raw bytes per second
  double add_Bps = 0;               ///< homomorphic add, raw bytes per second; 0 when not homomorphic
  double t0_s = 0;                  ///< fixed cost of one call: compress, and decompress and add unless given
  double decompress_t0_s = 0;       ///< fixed cost of one decompress call (t0_s unless the file gives it)
  double add_t0_s = 0;              ///< fixed cost of one homomorphic add (t0_s unless the file gives it)
  std::string source;               ///< where the figures come from, or "estimate: ..."
  int line = 0;                     ///< line of the setting in its file
};

/// What a model file says about a compressor besides its settings.
struct ModelInfo {
  std::string name;
  std::string description;
  std::string file;  ///< where it was read from
  Kind kind = Kind::kErrorBounded;
  bool homomorphic = false;  ///< compressed blocks can be added without decompressing
  bool summable = false;     ///< partial sums can be re-compressed (reduce-scatter on compressed data)
  std::string hardware;      ///< where the figures were measured
  std::string source;        ///< citation for the figures as a whole
  Placement placement = Placement::kAccelerator;  ///< where the figures were measured to run
  double staging_Bps = 0;                         ///< host <-> accelerator copy rate
  std::string staging_source;
  ErrorMode error_mode = ErrorMode::kRel;  ///< kErrorBounded
  DType dtype = DType::kF32;               ///< kErrorBounded: the data type the ratios were measured on
  double index_bytes = 0;                  ///< kSparsifier: bytes of one index sent with each kept value
  /// Where the figures were measured (optional "measured_on"): a device and the memory
  /// bandwidth available to the codec there; memory_Bps 0 when the file does not say.
  std::string measured_device;
  int measured_cores = 0;  ///< 0 when not given
  double measured_memory_Bps = 0;
  std::string measured_memory_source;
  /// How the throughputs transfer to other hardware (optional "transfer"; default kNone).
  Transfer transfer = Transfer::kNone;
  std::string transfer_source;
};

/// The hardware a model is applied to: where its figures are evaluated. A default value
/// means "no platform": the figures are used as measured, without a note.
struct TargetHardware {
  std::string platform;               ///< e.g. "hygon-dcu"; empty: no target
  std::string accelerator;            ///< the accelerator's model name
  double accelerator_memory_Bps = 0;  ///< 0 when unknown
  double host_memory_Bps = 0;         ///< memory bandwidth of the host available to the codec, 0 when unknown
};

/// An operating point asked for (the CLI's NAME:key=value,...): error_bound for
/// error-bounded compressors, bits for quantizers, density for sparsifiers. An absent
/// parameter means "the only setting" and is an error when the model has several.
struct Query {
  std::optional<double> error_bound;
  std::optional<int> bits;
  std::optional<double> density;
  std::optional<Placement> where;     ///< default: the model's placement
  std::optional<double> value_range;  ///< max - min of the data, for REL bounds; overrides the caller's
};

/// The cost at one operating point and what the model had to assume to give it.
struct Evaluation {
  CompressorCost cost;
  Placement where = Placement::kAccelerator;
  double parameter = 0;            ///< the error bound, bits or density used
  bool clamped = false;            ///< the request lay outside the settings; the nearest setting was used
  std::string basis;               ///< "measured setting 0.001", "interpolated between ...", "clamped to ..."
  std::vector<std::string> notes;  ///< lines for the user: clamping, dtype scaling, placement
};

/// A compressor's performance model: ratio and throughputs as functions of its parameter,
/// from a few measured settings. Between settings the log of ratio and of each throughput
/// is interpolated linearly in the log of the parameter; outside, the nearest setting is
/// used unchanged and the Evaluation says so (never a silent extrapolation).
class CompressorModel {
 public:
  /// `settings` must be non-empty, valid for `info.kind` and free of duplicate parameters
  /// (the reader checks all that with file and line); they are sorted by parameter here.
  CompressorModel(ModelInfo info, std::vector<Setting> settings);

  const ModelInfo& info() const { return info_; }
  const std::string& name() const { return info_.name; }
  Kind kind() const { return info_.kind; }
  bool homomorphic() const { return info_.homomorphic; }
  bool summable() const { return info_.summable; }
  /// Sorted by error bound, bits or density.
  const std::vector<Setting>& settings() const { return settings_; }

  /// Whether the model can compress tensors of `dtype` (floating-point types only).
  bool accepts(DType dtype) const;

  /// The cost of compressing `dtype` data at the operating point `query` on `target`.
  /// Throws InputError ("--compress", field = the query key) for a parameter the model does
  /// not take, a missing one, bits that are not a setting, or a dtype it cannot compress.
  /// With a target, a memory-bound model scales its throughputs by the target's memory
  /// bandwidth over the measured one (t0 unchanged), and any other model says in a note
  /// that its figures are used unscaled and where they were measured.
  Evaluation evaluate(const Query& query, DType dtype, const TargetHardware& target = {}) const;
  CompressorCost cost(const Query& query, DType dtype, const TargetHardware& target = {}) const {
    return evaluate(query, dtype, target).cost;
  }

  /// The bound on |x - x'| per element for one compression: for ABS the bound itself, for
  /// REL bound * value range (query.value_range when given, else `value_range`). Quantizers
  /// and sparsifiers have no a-priori bound: +infinity.
  double absolute_error_bound(const Query& query, double value_range) const;

 private:
  ModelInfo info_;
  std::vector<Setting> settings_;

  double parameter_of(const Setting& setting) const;
  std::string parameter_key() const;
  void check_query_keys(const Query& query) const;
  double requested_parameter(const Query& query) const;
  Setting point_at(double parameter, Evaluation& evaluation) const;
  /// The factor the throughputs scale by on `target` (1 when they do not), with its note.
  double transfer_to(const TargetHardware& target, Evaluation& evaluation) const;
};

}  // namespace ccsim::compress
