// A trace's own durations as a result (study/measured_result.hpp): the imported trace of
// tests/data/compute (every call measured), the published profile of traces/ (no call
// measured) and a synthesised job (FLOPs only, programs shared by ranks); every end time is
// the trace's durations added up here, operator by operator.
#include <string>

#include <catch2/catch.hpp>

#include "study/measured_result.hpp"
#include "synth/megatron.hpp"
#include "synth/model_spec.hpp"
#include "trace/native_reader.hpp"

using namespace ccsim;

namespace {

/// The sum of a rank's recorded durations: compute's duration_s, the calls' measured_s (0
/// where not recorded); for programs of one stream without `after`, its end.
double recorded_s(const trace::Trace& t, int rank) {
  double sum = 0;
  for (std::size_t i = 0; i < t.op_count(rank); ++i) {
    const trace::Op& op = t.op(rank, i);
    const double s = op.kind == trace::OpKind::kCompute ? op.duration_s : op.measured_s;
    if (s > 0) sum += s;
  }
  return sum;
}

}  // namespace

TEST_CASE("a trace whose every call was measured ends each rank at the sum of its durations", "[study]") {
  const trace::Trace t = trace::read_native(CCSIM_SOURCE_DIR "/tests/data/compute/tp2_pp2.json");
  const engine::Result r = study::measured_result(t);
  CHECK(r.algorithm == "as measured: each call's measured_ms");
  CHECK(r.platform_name == "the measurement in the file");
  CHECK(r.network_model == "none: nothing simulated, durations as recorded in the trace");
  CHECK(r.notes.empty());
  CHECK_FALSE(r.has_waits);
  REQUIRE(r.world_size == 4);
  CHECK(r.stage_count == 2);
  double makespan = 0;
  for (int rank = 0; rank < 4; ++rank) {
    REQUIRE(r.ops[static_cast<std::size_t>(rank)].size() == t.op_count(rank));
    CHECK(r.rank_end_s(rank) == Approx(recorded_s(t, rank)).epsilon(1e-12));
    makespan = std::max(makespan, recorded_s(t, rank));
  }
  CHECK(r.makespan_s == Approx(makespan).epsilon(1e-12));
  // Operators back to back: each starts where the one before ended.
  const auto& ops = r.ops[0];
  for (std::size_t i = 1; i < ops.size(); ++i) CHECK(ops[i].start_s == ops[i - 1].end_s);
  CHECK(r.name(ops[1].name) == "zero_grad");
  CHECK(r.name(ops[1].label) == "grad_buf");
  CHECK(r.name(ops[1].kind) == "compute");
}

TEST_CASE("a trace that records no call's time gives its calls 0 ms and says so", "[study]") {
  const trace::Trace t = trace::read_native(CCSIM_SOURCE_DIR "/traces/qu2025-profile.json");
  const engine::Result r = study::measured_result(t);
  CHECK(r.algorithm == "none: the trace records no measured time for its collectives and transfers (0 ms here)");
  CHECK(r.trace_name == "qu2025-profile");
  for (int rank = 0; rank < t.world_size; ++rank) {
    CHECK(r.rank_end_s(rank) == Approx(recorded_s(t, rank)).epsilon(1e-12));
    for (const engine::OpRecord& rec : r.ops[static_cast<std::size_t>(rank)]) {
      if (r.name(rec.kind) != "compute") CHECK(rec.end_s == rec.start_s);
    }
  }
}

TEST_CASE("a synthesised job of FLOPs only shares one record list per program and counts what is untimed", "[study]") {
  synth::Parallelism par;
  par.tp = 2;
  par.pp = 2;
  par.dp = 2;
  par.micro_batches = 2;
  const trace::Trace t = synth::synthesize(synth::load_model("small-gpt"), par, "dgx-h100-superpod");
  const engine::Result r = study::measured_result(t);
  std::size_t compute = 0;
  for (int rank = 0; rank < t.world_size; ++rank) {
    for (std::size_t i = 0; i < t.op_count(rank); ++i) compute += t.op(rank, i).kind == trace::OpKind::kCompute;
  }
  REQUIRE(compute > 0);
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0] == std::to_string(compute) + " compute operators have no duration_ms (FLOPs only): 0 ms here");
  CHECK(r.makespan_s == 0);
  // Ranks of one program read one list; ranks of different programs do not.
  for (int a = 0; a < t.world_size; ++a) {
    for (int b = 0; b < t.world_size; ++b) {
      const bool same = t.program_of[static_cast<std::size_t>(a)] == t.program_of[static_cast<std::size_t>(b)];
      CHECK(r.ops.shared(static_cast<std::size_t>(a), static_cast<std::size_t>(b)) == same);
    }
  }
}
