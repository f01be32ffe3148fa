// The UCX transport for real: an MPI program (MPI only bootstraps UCX) run by ctest under
// mpirun on 2 and 4 processes. Every check runs on every rank; a wrong result is reported
// with rank, peer, size and the first wrong byte, and the program exits non-zero. An
// exception where none is expected aborts the job (the other ranks would wait for ever).
#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "measure/ucx_transport.hpp"

namespace {

using ccsim::measure::Transport;
using ccsim::measure::UcxWorld;
using Clock = std::chrono::steady_clock;

int g_rank = 0;
int g_failures = 0;

void fail(const std::string& what) {
  std::fprintf(stderr, "FAIL rank %d: %s\n", g_rank, what.c_str());
  ++g_failures;
}

// Content of a message: differs per source, destination, size and context, byte by byte.
std::byte pattern(int source, int destination, std::size_t size, std::uint32_t context, std::size_t i) {
  return static_cast<std::byte>((i * 7 + static_cast<std::size_t>(source) * 13 +
                                 static_cast<std::size_t>(destination) * 29 + size + context * 101) %
                                251);
}

std::vector<std::byte> message(int source, int destination, std::size_t size, std::uint32_t context) {
  std::vector<std::byte> data(size);
  for (std::size_t i = 0; i < size; ++i) data[i] = pattern(source, destination, size, context, i);
  return data;
}

// Checks the received bytes; names the first wrong one.
void verify(const std::string& what, std::span<const std::byte> got, std::size_t got_length, int source,
            int destination, std::size_t size, std::uint32_t context) {
  if (got_length != size) {
    fail(fmt::format("{}: from peer {}, size {}: received length {}", what, source, size, got_length));
    return;
  }
  for (std::size_t i = 0; i < size; ++i) {
    const std::byte expected = pattern(source, destination, size, context, i);
    if (got[i] != expected) {
      fail(fmt::format("{}: from peer {}, size {}: byte {} is {}, expected {}", what, source, size, i,
                       static_cast<int>(got[i]), static_cast<int>(expected)));
      return;
    }
  }
}

constexpr std::size_t kSizes[] = {0, 1, 4096, std::size_t{1} << 20, std::size_t{16} << 20};

// For every distance d (0 = to itself, 1 = the ring): send to rank + d, receive from rank - d,
// concurrently; so every ordered pair exchanges every size.
void all_pairs(Transport& t, std::uint32_t context, const std::string& label) {
  const int n = t.size();
  const int me = t.rank();
  for (int d = 0; d < n; ++d) {
    const int to = (me + d) % n;
    const int from = (me - d + n) % n;
    for (std::size_t size : kSizes) {
      const std::vector<std::byte> send = message(me, to, size, context);
      std::vector<std::byte> recv(size);
      t.barrier();
      const auto start = Clock::now();
      const std::size_t got = t.exchange(to, send, from, recv);
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      verify(fmt::format("{} distance {}", label, d), recv, got, from, me, size, context);
      if (d == 1 && size == kSizes[4] && me == 0) {
        std::printf("%s: 16 MiB ring exchange (send right, receive left) on rank 0: %.1f ms, %.1f MB/s per direction\n",
                    label.c_str(), seconds * 1e3, static_cast<double>(size) / seconds / 1e6);
      }
    }
  }
}

// 16 MiB from rank 0 to rank 1 alone, timed by the receiver (what a shaped link gives one way).
void one_way_timing(Transport& t, const std::string& label) {
  if (t.size() < 2) return;
  const std::size_t size = std::size_t{16} << 20;
  t.barrier();
  if (t.rank() == 0) {
    t.exchange(1, message(0, 1, size, 0), -1, {});
  } else if (t.rank() == 1) {
    std::vector<std::byte> recv(size);
    const auto start = Clock::now();
    const std::size_t got = t.exchange(-1, {}, 0, recv);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    verify("one way", recv, got, 0, 1, size, 0);
    std::printf("%s: 16 MiB one way, rank 0 -> 1, timed on rank 1: %.1f ms, %.1f MB/s\n", label.c_str(), seconds * 1e3,
                static_cast<double>(size) / seconds / 1e6);
    std::fflush(stdout);
  }
  t.barrier();
}

// A message shorter than the receive buffer: its length comes back, the rest is untouched.
void short_message(Transport& t) {
  const int n = t.size();
  const int to = (t.rank() + 1) % n;
  const int from = (t.rank() - 1 + n) % n;
  const std::size_t size = 1000;
  const std::vector<std::byte> send = message(t.rank(), to, size, 0);
  std::vector<std::byte> recv(4096, std::byte{0xEE});
  const std::size_t got = t.exchange(to, send, from, recv);
  verify("short message", recv, got, from, t.rank(), size, 0);
  for (std::size_t i = size; i < recv.size(); ++i) {
    if (recv[i] != std::byte{0xEE}) {
      fail(
          fmt::format("short message: from peer {}, size {}: byte {} past the message was overwritten", from, size, i));
      break;
    }
  }
}

// A message longer than the receive buffer throws, naming the buffer size.
void too_long_message(Transport& t) {
  const int n = t.size();
  const int to = (t.rank() + 1) % n;
  const int from = (t.rank() - 1 + n) % n;
  const std::vector<std::byte> send = message(t.rank(), to, 2048, 0);
  std::vector<std::byte> recv(1024);
  try {
    const std::size_t got = t.exchange(to, send, from, recv);
    fail(fmt::format("too long message: from peer {}, size 2048 into 1024 B: no exception, length {}", from, got));
  } catch (const std::runtime_error& e) {
    const std::string text = e.what();
    if (text.find("message longer than the 1024 B buffer") == std::string::npos) {
      fail(fmt::format("too long message: from peer {}, size 2048: unexpected message \"{}\"", from, text));
    }
  }
}

// Two transports over the same processes, contexts 1 and 2: a message sent on context 1
// first must not match a receive on context 2 posted before it is received.
void contexts_do_not_cross(Transport& a, Transport& b) {
  const int n = a.size();
  const int to = (a.rank() + 1) % n;
  const int from = (a.rank() - 1 + n) % n;
  const std::size_t size = 64;  // eager: a send alone completes without its receive
  const std::vector<std::byte> on_a = message(a.rank(), to, size, 1);
  const std::vector<std::byte> on_b = message(a.rank(), to, size, 2);
  std::vector<std::byte> recv_a(size);
  std::vector<std::byte> recv_b(size);
  a.exchange(to, on_a, -1, {});
  const std::size_t got_b = b.exchange(to, on_b, from, recv_b);
  const std::size_t got_a = a.exchange(-1, {}, from, recv_a);
  verify("context 2 after context 1 was sent", recv_b, got_b, from, a.rank(), size, 2);
  verify("context 1 received last", recv_a, got_a, from, a.rank(), size, 1);
}

// Rank 0 enters late; nobody leaves before it entered.
void barrier_waits(Transport& t, const std::string& label) {
  for (int i = 0; i < 50; ++i) t.barrier();
  const auto delay = std::chrono::milliseconds(300);
  if (t.rank() == 0) std::this_thread::sleep_for(delay);
  const auto start = Clock::now();
  t.barrier();
  const auto waited = Clock::now() - start;
  if (t.rank() != 0 && waited < delay / 2) {
    fail(fmt::format("{} barrier: left after {} ms although rank 0 entered {} ms late", label,
                     std::chrono::duration_cast<std::chrono::milliseconds>(waited).count(), delay.count()));
  }
}

void run(UcxWorld& world) {
  const int n = world.size();
  std::vector<int> everyone(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) everyone[static_cast<std::size_t>(i)] = i;
  if (world.rank() == 0) {
    std::printf("%s; %d processes; to rank %d: %s\n", UcxWorld::describe().c_str(), n, n > 1 ? 1 : 0,
                world.transports_to(n > 1 ? 1 : 0).c_str());
  }

  auto all = world.group(everyone, 1);
  auto all_again = world.group(everyone, 2);
  if (all->name() != "ucx" || all->size() != n || all->rank() != world.rank()) {
    fail(fmt::format("world group: name {}, size {}, rank {}", all->name(), all->size(), all->rank()));
  }
  all_pairs(*all, 1, "world");
  one_way_timing(*all, "world");
  short_message(*all);
  too_long_message(*all);
  contexts_do_not_cross(*all, *all_again);
  barrier_waits(*all, "world");

  // Even and odd world ranks, reversed order inside the group, concurrently: group ranks
  // are local and the two groups' messages (same group ranks and sizes) never mix.
  std::vector<int> members;
  for (int i = n - 1; i >= 0; --i) {
    if (i % 2 == world.rank() % 2) members.push_back(i);
  }
  const std::uint32_t context = world.rank() % 2 == 0 ? 10 : 11;
  auto half = world.group(members, context);
  const int expected_rank = static_cast<int>(members.size()) - 1 - world.rank() / 2;
  if (half->rank() != expected_rank || half->size() != static_cast<int>(members.size())) {
    fail(fmt::format("split group: rank {}, size {}, expected rank {}, size {}", half->rank(), half->size(),
                     expected_rank, members.size()));
  }
  all_pairs(*half, context, context == 10 ? "even group" : "odd group");
  barrier_waits(*half, context == 10 ? "even group" : "odd group");
  all->barrier();

  try {
    world.group({world.rank(), world.rank()}, 3);
    fail("group with a rank listed twice: no exception");
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()) != fmt::format("ucx group: world rank {} listed twice", world.rank())) {
      fail(fmt::format("group with a rank listed twice: \"{}\"", e.what()));
    }
  }
  try {
    all->exchange(n, {}, -1, {});
    fail("peer out of range: no exception");
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()) != fmt::format("ucx transport: send_peer {} out of range: expected -1..{}", n, n - 1)) {
      fail(fmt::format("peer out of range: \"{}\"", e.what()));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  try {
    UcxWorld world;
    run(world);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL rank %d: unexpected exception: %s\n", g_rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf(failures == 0 ? "all checks passed\n" : "%d check(s) failed\n", failures);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
