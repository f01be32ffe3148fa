#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "collective/schedule.hpp"

namespace ccsim::collective {

/// What an execution did, per group-local rank. Byte counts are raw (uncompressed) bytes;
/// "compressed" counters count the raw bytes that travelled or were processed compressed.
struct ExecutionStats {
  std::vector<std::uint64_t> bytes_sent;             ///< raw blocks sent
  std::vector<std::uint64_t> bytes_received;         ///< raw blocks received
  std::vector<std::uint64_t> compressed_bytes_sent;  ///< blocks sent compressed (raw size)
  std::vector<std::uint64_t> compressed_bytes_received;
  std::vector<std::uint64_t> bytes_reduced;           ///< raw additions (gamma)
  std::vector<std::uint64_t> bytes_added_compressed;  ///< homomorphic additions
  std::vector<std::uint64_t> bytes_compressed;        ///< input of compress steps
  std::vector<std::uint64_t> bytes_decompressed;      ///< output of decompress steps
  std::size_t messages = 0;
};

/// The lossy round trip of a compressor, applied in place to a block being compressed
/// (identity when empty: a lossless compressor). An error-bounded quantizer keeps values on
/// a common grid, so compressed blocks add exactly (homomorphic addition).
using Quantizer = std::function<void(std::span<double>)>;

/// Executes a schedule on numbers in memory: per rank a raw buffer and a compressed buffer
/// of schedule.count() elements, buffered (eager) messages matched in order per (sender,
/// receiver) pair. It is the cheap oracle for schedules: a wrong schedule gives a wrong
/// result; a mismatched block size, a block out of range or a cyclic wait throws
/// std::logic_error naming the schedule, rank and step.
ExecutionStats execute_in_memory(const Schedule& schedule, std::vector<std::vector<double>>& buffers,
                                 const Quantizer& quantize = {});

}  // namespace ccsim::collective
