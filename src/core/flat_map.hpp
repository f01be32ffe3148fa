#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ccsim {

/// A hash map from 64-bit keys to values, for the engine's per-message lookups (a message's
/// mailbox, its flow's bound): open addressing with linear probing in one array, so that a
/// lookup touches one or two cache lines where std::unordered_map follows a node per entry.
/// The key kEmpty (all bits set) is reserved: callers never insert it. Entries are never
/// erased; pointers to values stay valid until the next insertion that grows the table.
template <class Value>
class FlatMap64 {
 public:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

  /// The value of `key`, nullptr when absent.
  Value* find(std::uint64_t key) {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      if (slots_[i].first == key) return &slots_[i].second;
      if (slots_[i].first == kEmpty) return nullptr;
    }
  }

  /// The value of `key`, inserted as `value` when absent; whether it was.
  std::pair<Value*, bool> try_emplace(std::uint64_t key, Value value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      if (slots_[i].first == key) return {&slots_[i].second, false};
      if (slots_[i].first == kEmpty) {
        slots_[i] = {key, std::move(value)};
        ++size_;
        return {&slots_[i].second, true};
      }
    }
  }

  std::size_t size() const { return size_; }
  /// Forgets every entry (keeps the memory).
  void clear() {
    for (auto& slot : slots_) slot = {kEmpty, Value{}};
    size_ = 0;
  }

 private:
  std::vector<std::pair<std::uint64_t, Value>> slots_;  ///< a power of two of them, at most half full
  std::size_t mask_ = 0;
  std::size_t size_ = 0;

  std::size_t slot_of(std::uint64_t key) const {
    key ^= key >> 33;  // murmur3's finalizer: neighbouring keys land far apart
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return static_cast<std::size_t>(key) & mask_;
  }

  void grow() {
    std::vector<std::pair<std::uint64_t, Value>> old(std::max<std::size_t>(16, 2 * slots_.size()), {kEmpty, Value{}});
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    size_ = 0;
    for (auto& [key, value] : old) {
      if (key != kEmpty) try_emplace(key, std::move(value));
    }
  }
};

}  // namespace ccsim
