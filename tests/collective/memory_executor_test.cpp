#include <catch2/catch.hpp>

#include <stdexcept>

#include "collective/memory_executor.hpp"
#include "support.hpp"
#include "support/error_of.hpp"

using namespace ccsim::collective;
using testing::ListedSchedule;

namespace {

std::string error_of(const Schedule& schedule) {
  testing::Buffers buffers(static_cast<std::size_t>(schedule.size()), std::vector<double>(schedule.count(), 1.0));
  return ccsim::test::message_of<std::logic_error>([&] { execute_in_memory(schedule, buffers); }, "");
}

}  // namespace

TEST_CASE("in-memory execution: a cyclic wait is a deadlock naming rank, step and peer", "[collective][executor]") {
  // Both ranks first receive from each other: neither sends.
  ListedSchedule schedule(4, {{recv_only(1, {0, 4}, RecvMode::kCopy), send_only(1, {0, 4})},
                              {recv_only(0, {0, 4}, RecvMode::kCopy), send_only(0, {0, 4})}});
  CHECK(error_of(schedule) == "ring: deadlock, rank 0 waits at step 0 for rank 1");
}

TEST_CASE("in-memory execution: a block of the wrong size names rank, step and both sizes", "[collective][executor]") {
  ListedSchedule schedule(4,
                          {{compress_block({0, 4}), send_only(1, {0, 2})}, {recv_only(0, {0, 3}, RecvMode::kReduce)}});
  CHECK(error_of(schedule) == "ring: rank 1 step 0 expects 3 raw elements from rank 0, got 2 raw");
}

TEST_CASE("in-memory execution: a block out of range names rank, step and range", "[collective][executor]") {
  ListedSchedule schedule(4, {{compress_block({0, 4}), send_only(1, {2, 4})}, {recv_only(0, {0, 4}, RecvMode::kCopy)}});
  CHECK(error_of(schedule) == "ring: rank 0 step 1 touches elements [2, 6) of a buffer of 4");
}

TEST_CASE("in-memory execution: a message never received is reported", "[collective][executor]") {
  ListedSchedule schedule(4, {{send_only(1, {0, 4}), send_only(1, {0, 4})}, {recv_only(0, {0, 4}, RecvMode::kCopy)}});
  CHECK(error_of(schedule) == "ring: 1 message(s) from rank 0 to rank 1 never received");
}

TEST_CASE("in-memory execution: compressed exchanges add homomorphically and are counted", "[collective][executor]") {
  ListedSchedule schedule(2, {{compress_block({0, 2}), send_only(1, {0, 2}, true)},
                              {compress_block({0, 2}), recv_only(0, {0, 2}, RecvMode::kReduce, true),
                               decompress_block({0, 2}, RecvMode::kCopy)}});
  testing::Buffers buffers = {{1.25, 2.25}, {10.0, 20.0}};
  ExecutionStats stats = execute_in_memory(schedule, buffers, testing::grid_quantizer(0.5));
  CHECK(buffers[1] == std::vector<double>{11.0, 22.0});
  CHECK(stats.compressed_bytes_sent == std::vector<std::uint64_t>{8, 0});
  CHECK(stats.compressed_bytes_received == std::vector<std::uint64_t>{0, 8});
  CHECK(stats.bytes_added_compressed == std::vector<std::uint64_t>{0, 8});
  CHECK(stats.bytes_compressed == std::vector<std::uint64_t>{8, 8});
  CHECK(stats.bytes_decompressed == std::vector<std::uint64_t>{0, 8});
  CHECK(stats.messages == 1);
}
