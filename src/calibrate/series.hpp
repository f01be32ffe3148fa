#pragma once

// A measured all_reduce series and its prediction: which series of a measurement file (the
// --series option), its points, the schedule that models it, the critical-path prediction of
// a point under a tier model, and the errors of a set of points. network_fit fits tiers with
// these; validate and the compute backend predict with them.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/measurement_file.hpp"
#include "collective/schedule.hpp"
#include "compress/compressor_cost.hpp"
#include "topology/network_model.hpp"

namespace ccsim::calibrate {

/// Which series of a measurement file, and which schedule models it.
struct SeriesChoice {
  std::string algorithm = "ring";  ///< the series' algorithm: ring, MPI_Allreduce, compressed-ring, ...
  std::string transport = "mpi";
  /// The group kind the series ran on ("world", "tp", "dp", ... of ccsim measure --groups);
  /// empty: any, as long as that leaves one point per size and rank count.
  std::string group;
  /// The schedule that models the MPI library's own collective: "auto" (what
  /// collective::make_schedule chooses, as MPI libraries do) or an algorithm name.
  std::string library_schedule = "auto";
};

/// Parses ALGO/TRANSPORT (the --series option); InputError(what, 0, field, ...) when malformed.
SeriesChoice parse_series_choice(const std::string& text, const std::string& what, const std::string& field);

/// The series a command fits when --series is not given: ring/mpi when the file has it, else
/// the file's only all_reduce series (an external benchmark's output has one); else an error
/// listing the series.
std::string default_series(const MeasurementFile& file);

/// One measured point and what a model predicts for it.
struct PointFit {
  std::uint64_t bytes = 0;  ///< each rank's buffer
  int ranks = 0;
  double measured_s = 0;
  double predicted_s = 0;
  bool fitted = false;          ///< used by the fit (else held out)
  std::optional<double> p10_s;  ///< the spread of the measured repetitions, when recorded
  std::optional<double> p90_s;
  /// predicted / measured - 1.
  double relative_error() const { return predicted_s / measured_s - 1; }
};

/// A measured point as a PointFit (bytes, ranks, median and spread), prediction still 0.
PointFit point_fit(const SeriesPoint& measured);

/// Errors of a set of points: geometric mean exp(mean |ln(predicted / measured)|) - 1 and
/// worst |predicted / measured - 1|.
struct ErrorSummary {
  int points = 0;
  double gmean = 0;
  double worst = 0;
};
ErrorSummary summarize(const std::vector<PointFit>& points, bool fitted);

/// The measurement's own noise: exp(mean ln(p90 / p10) / 2) - 1 over the points that recorded
/// their spread (the half-width of p10..p90 of single repetitions about the median, as a
/// geometric mean); none when no point did. `counted` receives how many did.
std::optional<double> measurement_spread(const std::vector<PointFit>& points, int* counted = nullptr);

/// The noise a fit is judged against where the measurements record no spread (OSU,
/// nccl-tests, CSV): an assumption, said so wherever it is used.
inline constexpr double kAssumedSpread = 0.10;
/// How many times the noise a gmean error must exceed for the fit to be poor: errors of the
/// noise's size are the measurement's (calibration_report says so), errors of twice that are
/// the model's.
inline constexpr double kPoorFitFactor = 2.0;

/// A fit judged against the measurement's own noise (measurement_spread, else kAssumedSpread).
struct FitQuality {
  double noise = 0;
  bool noise_measured = false;  ///< false: kAssumedSpread
  double limit = 0;             ///< kPoorFitFactor x noise
  /// The gmean error of the fitted or of the held-out points is above `limit`.
  bool poor = false;
  std::vector<PointFit> beyond;  ///< the points whose |error| is above `limit`, in order
};
FitQuality judge_fit(const std::vector<PointFit>& points);

/// The largest group whose points calibration and validation predict (the critical path visits
/// every rank's messages: the cost grows with ranks x steps, 40 s to fit 1,024 ranks here).
inline constexpr int kMaxPredictedRanks = 4096;

/// The measured points of `choice` in `file`, by size; InputError naming the choices found
/// when the series is absent, or a point beyond kMaxPredictedRanks or 1 PiB per rank.
std::vector<SeriesPoint> select_series(const MeasurementFile& file, const SeriesChoice& choice);

/// The schedule a point is predicted with: the series' own schedule (ccsim-schedule), or
/// choice.library_schedule for a library's collective (MPI, NCCL, a CSV's); fp32 elements.
std::unique_ptr<collective::Schedule> schedule_for(
    const SeriesPoint& point, const SeriesChoice& choice,
    collective::Compression compression = collective::Compression::kNone);

/// The critical path of `schedule` under a tier model: each message costs tier.message_s(wire
/// bytes), reductions reduce_s_per_byte, compression `compressor`. With `sharing` > 1
/// processes per core (core_sharing), everything takes `sharing` times longer and every
/// message pays the tier's core hand-off (topology::on_shared_cores). `smallest_message`, when
/// given, receives the fewest wire bytes of any message priced (for TierModel::extrapolates).
double predict_s(const collective::Schedule& schedule, const topology::TierModel& tier, double reduce_s_per_byte,
                 const compress::CompressorCost& compressor = {}, double sharing = 1,
                 std::uint64_t* smallest_message = nullptr);

}  // namespace ccsim::calibrate
