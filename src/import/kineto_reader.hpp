#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace.hpp"

namespace ccsim::import {

/// Where a profiler event ran. A stream is a first-class thing: the host thread that runs the
/// training loop, a communication library's worker thread, an asynchronous op's completion on
/// the calling thread, a GPU stream. The importer accounts the main host stream operator by
/// operator and reports what the other streams hold.
enum class StreamKind : std::uint8_t {
  kHostThread,  ///< synchronous CPU events of one thread (properly nested)
  kHostAsync,   ///< events marked args.async on a thread (gloo work): may overlap the thread's own events
  kGpu,         ///< device events (cat kernel/gpu_memcpy/gpu_memset): one per device stream
};
std::string_view stream_kind_name(StreamKind kind);

/// One complete ("ph":"X") event, compact: names and threads are interned.
struct Event {
  trace::Names::Id name = trace::Names::kEmpty;
  std::uint32_t stream = 0;       ///< index into RankProfile::streams
  std::uint32_t ordinal = 0;      ///< position in traceEvents (for messages)
  std::uint32_t dims = 0;         ///< offset of args["Input Dims"] in RankProfile::dims, 0 = none
  std::int64_t sequence = -1;     ///< args["Sequence number"], -1 without
  std::int64_t external_id = -1;  ///< args["External id"]: a host op and the device work it launched share it
  std::uint32_t types = 0;        ///< offset of args["Input type"] in RankProfile::types, 0 = none
  bool kernel = false;            ///< a device kernel (cat "kernel"), not a copy, memset or annotation
  bool runtime = false;           ///< a host call into the device runtime or driver (cat "cuda_runtime", ...)
  double ts_us = 0;
  double dur_us = 0;
  double end_us() const { return ts_us + dur_us; }
};

struct Stream {
  StreamKind kind = StreamKind::kHostThread;
  std::string id;                     ///< the trace's tid (or "stream N" for a GPU stream), as text
  std::vector<std::uint32_t> events;  ///< indices into RankProfile::events, in file order
};

/// One rank's profiler trace (Chrome trace JSON as written by torch.profiler / Kineto), read
/// with a SAX handler: only the fields the importer uses are kept.
struct RankProfile {
  std::string file;
  int rank = -1;       ///< distributedInfo.rank, else the pid of the events, else -1
  int world_size = 0;  ///< distributedInfo.world_size, 0 if absent
  trace::Names names;
  std::vector<Stream> streams;
  std::vector<Event> events;
  /// Input Dims, flattened: at offset o, [list count n, then n times (rank r, r extents)].
  /// Offset 0 holds a sentinel so that 0 means "no dims".
  std::vector<std::int64_t> dims{0};
  /// Input type, flattened: at offset o, [count n, then n interned type names ("c10::BFloat16",
  /// "float", "" for a non-tensor)]. Offset 0 holds a sentinel, as in `dims`.
  std::vector<trace::Names::Id> types{0};
  /// Events the reader did not understand (not "X" or metadata "M"), by "ph=<ph> <name>".
  std::map<std::string, std::uint64_t> unknown;
  std::uint64_t metadata_events = 0;
  /// Complete events read but not kept: outside the window of the iteration the file was read
  /// for (read_rank_profile with an iteration); 0 when every event is kept.
  std::uint64_t dropped = 0;
  /// How many times the file was read: 2 when one iteration was asked for and the file's
  /// events are not in time order around it (ProfileWindow).
  int passes = 1;

  std::string_view name(const Event& e) const { return names[e.name]; }
  /// The Input Dims of an event: one shape per input (empty shape for scalars/None).
  std::vector<std::vector<std::int64_t>> input_dims(const Event& e) const;
  /// The Input type of an event: one name per input (empty without the field).
  std::vector<std::string_view> input_types(const Event& e) const;
};

/// k of an "Iteration#k" event name (k a non-negative integer); nullopt for any other name.
std::optional<int> iteration_number(std::string_view name);

/// Which events of a rank file read_rank_profile keeps.
struct ProfileWindow {
  /// Every event (the whole file in memory, compact).
  static ProfileWindow all() { return {}; }
  /// The events of one iteration: Iteration#k of the host threads (k < 0: the smallest k of
  /// the file, the importer's default); kept are the events that start within it, and every
  /// host thread's Iteration#k event, so that the importer names a missing or repeated one as
  /// it would. Memory then grows with the iteration, not with the file: a profile of many
  /// steps imports one in the space of one. A file in time order (as the profiler writes it)
  /// is read once, the window following the Iteration#k events as they come; where an event
  /// of the chosen iteration came before its Iteration#k by more than a profiler tick, the
  /// file is read a second time with the window known (RankProfile::passes).
  static ProfileWindow iteration(int k) { return {true, k}; }
  bool one_iteration = false;
  int k = -1;
};

/// Reads one rank file. A truncated or malformed file, or an event without the fields of its
/// kind, raises InputError naming the file and the byte position or the event, wherever in the
/// file it is (a window keeps fewer events, it does not check fewer). With a window of one
/// iteration `in` may be read twice: it must be seekable (a file or a string stream).
RankProfile read_rank_profile(std::istream& in, const std::string& file, ProfileWindow window = ProfileWindow::all());
/// As read_rank_profile, from a file; one whose content is gzip-compressed (torch.profiler's
/// `.json.gz`, recognised by its magic bytes, whatever its name) is decompressed into memory
/// first.
RankProfile read_rank_profile_file(const std::string& path, ProfileWindow window = ProfileWindow::all());

}  // namespace ccsim::import
