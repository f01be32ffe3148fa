#include "engine/result.hpp"
#include "core/index.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

namespace ccsim::engine {
namespace {

class Writer {
 public:
  template <typename T>
  void pod(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void str(std::string_view text) {
    pod<std::uint64_t>(text.size());
    out_.append(text.data(), text.size());
  }
  template <typename T>
  void vec(const std::vector<T>& values) {
    pod<std::uint64_t>(values.size());
    out_.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  void reserve(std::size_t bytes) { out_.reserve(bytes); }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  T pod() {
    T value;
    need(sizeof(T));
    std::memcpy(&value, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::string str() {
    auto size = pod<std::uint64_t>();
    need(size);
    std::string text(in_.substr(pos_, size));
    pos_ += size;
    return text;
  }
  template <typename T>
  std::vector<T> vec() {
    auto size = pod<std::uint64_t>();
    need(size * sizeof(T));
    std::vector<T> values(size);
    if (size > 0) std::memcpy(values.data(), in_.data() + pos_, size * sizeof(T));  // data() may be null when empty
    pos_ += size * sizeof(T);
    return values;
  }

 private:
  void need(std::uint64_t bytes) const {
    if (pos_ + bytes > in_.size()) throw std::runtime_error("truncated simulation result");
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

}  // namespace

RankRecords::RankRecords(std::initializer_list<List> lists) {
  lists_.reserve(lists.size());
  for (const List& list : lists) lists_.push_back(std::make_shared<List>(list));
}

void RankRecords::resize(std::size_t ranks) {
  const std::size_t before = lists_.size();
  lists_.resize(ranks);
  for (std::size_t r = before; r < ranks; ++r) lists_[r] = std::make_shared<List>();
}

RankRecords::List& RankRecords::own(std::size_t rank) {
  std::shared_ptr<List>& list = lists_[rank];
  if (list.use_count() > 1) list = std::make_shared<List>(*list);
  return *list;
}

std::vector<std::size_t> RankRecords::first_readers() const {
  std::vector<std::size_t> first(lists_.size());
  std::unordered_map<const List*, std::size_t> seen;
  for (std::size_t r = 0; r < lists_.size(); ++r) first[r] = seen.try_emplace(lists_[r].get(), r).first->second;
  return first;
}

double Result::rank_end_s(int rank) const {
  const auto& records = at(ops, rank);
  if (records.empty()) return 0.0;
  if (streams_of(rank) == nullptr) return records.back().end_s;  // operators end in program order
  double end_s = 0;  // streams: the last operator in program order need not end last
  for (const OpRecord& record : records) end_s = std::max(end_s, record.end_s);
  return end_s;
}

std::string serialize(const Result& result) {
  Writer w;
  w.str(result.trace_name);
  w.pod(result.iterations);
  w.str(result.trace_file);
  w.str(result.platform_name);
  w.str(result.platform_file);
  w.str(result.network_model);
  w.str(result.algorithm);
  w.str(result.placement);
  w.str(result.compression);
  w.str(result.compute);
  w.pod(result.error_bound_abs);
  w.pod<std::uint64_t>(result.notes.size());
  for (const std::string& note : result.notes) w.str(note);
  w.str(result.guard_breach);
  w.pod(result.event_calls);
  w.pod(result.world_size);
  w.pod(result.nodes_used);
  w.pod(result.stage_count);
  w.vec(result.stage);
  w.pod<std::uint64_t>(result.names.size());
  for (const std::string& name : result.names) w.str(name);
  // A rank whose records are byte for byte the previous rank's (the tensor-parallel peers of a
  // synthesised trace, which --fast runs as one) is written as a reference to it: the child
  // hands over a job's records in an eighth of the bytes.
  std::uint64_t bytes = 0;
  for (std::size_t r = 0; r < result.ops.size(); ++r) {
    if (r == 0 || !result.ops.shared(r, r - 1)) bytes += result.ops[r].size() * sizeof(OpRecord);
  }
  // Reserved at its most (only the pages written become resident): grown by doubling, the
  // string of a 10,240-rank job (680 MB) took 1.3 GB while it was copied, on top of the
  // records. The margin leaves the child room for its outcome byte (run_in_child).
  w.reserve(bytes + 9 * result.ops.size() + (1 << 20));
  w.pod<std::uint64_t>(result.ops.size());
  for (std::size_t r = 0; r < result.ops.size(); ++r) {
    const auto& records = result.ops[r];
    const bool same = r > 0 && !records.empty() &&
                      (result.ops.shared(r, r - 1) ||
                       (result.ops[r - 1].size() == records.size() &&
                        std::memcmp(result.ops[r - 1].data(), records.data(), records.size() * sizeof(OpRecord)) == 0));
    w.pod<std::uint8_t>(same ? 1 : 0);
    if (!same) w.vec(records);
  }
  w.pod<std::uint64_t>(result.waits.size());
  for (const auto& spans : result.waits) w.vec(spans);
  // Streams: each distinct table once, then per rank its number (0: none).
  std::vector<const std::vector<std::uint8_t>*> tables;
  std::vector<std::uint32_t> table_of;
  for (const auto& table : result.streams) {
    std::uint32_t k = 0;
    if (table != nullptr) {
      auto it = std::find(tables.begin(), tables.end(), table.get());
      if (it == tables.end()) it = tables.insert(tables.end(), table.get());
      k = static_cast<std::uint32_t>(it - tables.begin()) + 1;
    }
    table_of.push_back(k);
  }
  w.pod<std::uint64_t>(tables.size());
  for (const auto* table : tables) w.vec(*table);
  w.vec(table_of);
  w.pod(result.makespan_s);
  w.pod(result.has_waits);
  return w.take();
}

Result deserialize(std::string_view bytes) {
  Reader r(bytes);
  Result result;
  result.trace_name = r.str();
  result.iterations = r.pod<int>();
  result.trace_file = r.str();
  result.platform_name = r.str();
  result.platform_file = r.str();
  result.network_model = r.str();
  result.algorithm = r.str();
  result.placement = r.str();
  result.compression = r.str();
  result.compute = r.str();
  result.error_bound_abs = r.pod<double>();
  result.notes.resize(r.pod<std::uint64_t>());
  for (std::string& note : result.notes) note = r.str();
  result.guard_breach = r.str();
  result.event_calls = r.pod<std::uint64_t>();
  result.world_size = r.pod<int>();
  result.nodes_used = r.pod<int>();
  result.stage_count = r.pod<int>();
  result.stage = r.vec<int>();
  result.names.resize(r.pod<std::uint64_t>());
  for (std::string& name : result.names) name = r.str();
  result.ops.resize(r.pod<std::uint64_t>());
  for (std::size_t k = 0; k < result.ops.size(); ++k) {
    const auto same = r.pod<std::uint8_t>();
    if (same > 1 || (same == 1 && k == 0)) throw std::runtime_error("malformed simulation result");
    if (same == 1)
      result.ops.share(k, k - 1);
    else
      result.ops.own(k) = r.vec<OpRecord>();
  }
  result.waits.resize(r.pod<std::uint64_t>());
  for (auto& spans : result.waits) spans = r.vec<WaitSpan>();
  std::vector<std::shared_ptr<const std::vector<std::uint8_t>>> tables(r.pod<std::uint64_t>());
  for (auto& table : tables) table = std::make_shared<const std::vector<std::uint8_t>>(r.vec<std::uint8_t>());
  for (std::uint32_t k : r.vec<std::uint32_t>()) {
    if (k > tables.size()) throw std::runtime_error("malformed simulation result");
    result.streams.push_back(k == 0 ? nullptr : tables[k - 1]);
  }
  result.makespan_s = r.pod<double>();
  result.has_waits = r.pod<bool>();
  return result;
}

}  // namespace ccsim::engine
