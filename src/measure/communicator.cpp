#include "measure/communicator.hpp"

#include <mpi.h>

#include <sched.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace ccsim::measure {
namespace {

void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(fmt::format("{} failed: {}", call, std::string(text, static_cast<std::size_t>(length))));
}

/// The CPUs this process may run on, ascending (all the machine's when the affinity cannot be read).
std::vector<int> affinity_cpu_ids() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  } else {
    const int all = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, CPU_SETSIZE);
    for (int cpu = 0; cpu < all; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

int to_int(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw std::runtime_error(fmt::format("{}: {} elements exceed MPI's int count", what, n));
  }
  return static_cast<int>(n);
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size(), 0);
  for (std::size_t i = 1; i < counts.size(); ++i) displs[i] = displs[i - 1] + counts[i - 1];
  return displs;
}

/// Point-to-point exchanges over a private duplicate of a communicator.
class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(MPI_Comm parent) {
    check(MPI_Comm_dup(parent, &comm_), "MPI_Comm_dup");
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiTransport() override { MPI_Comm_free(&comm_); }

  std::string_view name() const override { return "mpi"; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::size_t exchange(int send_peer, std::span<const std::byte> send, int recv_peer,
                       std::span<std::byte> recv) override {
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (recv_peer >= 0) {
      check(MPI_Irecv(recv.data(), to_int(recv.size(), "MPI_Irecv"), MPI_BYTE, recv_peer, kTag, comm_, &requests[0]),
            "MPI_Irecv");
    }
    if (send_peer >= 0) {
      check(MPI_Isend(send.data(), to_int(send.size(), "MPI_Isend"), MPI_BYTE, send_peer, kTag, comm_, &requests[1]),
            "MPI_Isend");
    }
    MPI_Status statuses[2];
    const int code = MPI_Waitall(2, requests, statuses);
    if (code == MPI_ERR_IN_STATUS) {
      for (const MPI_Status& status : statuses)
        check(status.MPI_ERROR, "MPI_Waitall (a message longer than its buffer?)");
    }
    check(code, "MPI_Waitall");
    if (recv_peer < 0) return 0;
    int received = 0;
    MPI_Get_count(&statuses[0], MPI_BYTE, &received);
    return static_cast<std::size_t>(received);
  }

  void barrier() override { check(MPI_Barrier(comm_), "MPI_Barrier"); }

 private:
  static constexpr int kTag = 7;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 0;
};

}  // namespace

struct Communicator::Impl {
  MPI_Comm comm = MPI_COMM_NULL;
  bool owned = false;
  int rank = 0;
  int size = 0;
  std::vector<int> world_ranks;

  Impl(MPI_Comm c, bool own) : comm(c), owned(own) {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int world_rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    world_ranks.resize(static_cast<std::size_t>(size));
    check(MPI_Allgather(&world_rank, 1, MPI_INT, world_ranks.data(), 1, MPI_INT, comm), "MPI_Allgather");
  }
  ~Impl() {
    if (owned) MPI_Comm_free(&comm);
  }
};

Communicator::Communicator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Communicator::~Communicator() = default;
Communicator::Communicator(Communicator&&) noexcept = default;
Communicator& Communicator::operator=(Communicator&&) noexcept = default;

Communicator Communicator::world() { return Communicator(std::make_unique<Impl>(MPI_COMM_WORLD, false)); }

int Communicator::rank() const { return impl_->rank; }
int Communicator::size() const { return impl_->size; }
const std::vector<int>& Communicator::world_ranks() const { return impl_->world_ranks; }

Communicator Communicator::split(int color, int key) const {
  MPI_Comm out = MPI_COMM_NULL;
  check(MPI_Comm_split(impl_->comm, color, key, &out), "MPI_Comm_split");
  return Communicator(std::make_unique<Impl>(out, true));
}

std::unique_ptr<Transport> Communicator::transport() const { return std::make_unique<MpiTransport>(impl_->comm); }

void Communicator::barrier() const { check(MPI_Barrier(impl_->comm), "MPI_Barrier"); }

void Communicator::all_reduce_sum(std::span<float> data) const {
  check(MPI_Allreduce(MPI_IN_PLACE, data.data(), to_int(data.size(), "MPI_Allreduce"), MPI_FLOAT, MPI_SUM, impl_->comm),
        "MPI_Allreduce");
}

void Communicator::all_gather(std::span<const float> mine, std::span<float> all, const std::vector<int>& counts) const {
  const std::vector<int> displs = displacements(counts);
  check(MPI_Allgatherv(mine.data(), to_int(mine.size(), "MPI_Allgatherv"), MPI_FLOAT, all.data(), counts.data(),
                       displs.data(), MPI_FLOAT, impl_->comm),
        "MPI_Allgatherv");
}

void Communicator::reduce_scatter(std::span<const float> in, std::span<float> out,
                                  const std::vector<int>& counts) const {
  check(MPI_Reduce_scatter(in.data(), out.data(), counts.data(), MPI_FLOAT, MPI_SUM, impl_->comm),
        "MPI_Reduce_scatter");
}

double Communicator::max(double value) const {
  double out = 0;
  check(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, impl_->comm), "MPI_Allreduce");
  return out;
}

double Communicator::min(double value) const {
  double out = 0;
  check(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MIN, impl_->comm), "MPI_Allreduce");
  return out;
}

double Communicator::sum(double value) const {
  double out = 0;
  check(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_SUM, impl_->comm), "MPI_Allreduce");
  return out;
}

std::uint64_t Communicator::sum(std::uint64_t value) const {
  std::uint64_t out = 0;
  check(MPI_Allreduce(&value, &out, 1, MPI_UINT64_T, MPI_SUM, impl_->comm), "MPI_Allreduce");
  return out;
}

std::vector<double> Communicator::all_gather(double value) const {
  std::vector<double> out(static_cast<std::size_t>(impl_->size));
  check(MPI_Allgather(&value, 1, MPI_DOUBLE, out.data(), 1, MPI_DOUBLE, impl_->comm), "MPI_Allgather");
  return out;
}

std::vector<std::string> Communicator::all_gather(const std::string& value) const {
  const int length = to_int(value.size(), "MPI_Allgather");
  std::vector<int> lengths(static_cast<std::size_t>(impl_->size));
  check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, impl_->comm), "MPI_Allgather");
  const std::vector<int> displs = displacements(lengths);
  std::string all(static_cast<std::size_t>(displs.back() + lengths.back()), '\0');
  check(
      MPI_Allgatherv(value.data(), length, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR, impl_->comm),
      "MPI_Allgatherv");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    out.push_back(all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lengths[i])));
  }
  return out;
}

double Communicator::now_s() { return MPI_Wtime(); }

std::string Communicator::library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string out(text, static_cast<std::size_t>(length));
  if (auto end = out.find_first_of("\n,"); end != std::string::npos) out.resize(end);
  return out;
}

std::vector<std::pair<std::string, std::uint64_t>> Communicator::protocol_limits() {
  std::vector<std::pair<std::string, std::uint64_t>> limits;
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return limits;
  int count = 0;
  if (MPI_T_cvar_get_num(&count) == MPI_SUCCESS) {
    for (int i = 0; i < count; ++i) {
      char name[256];
      char description[16];
      int name_length = sizeof name;
      int description_length = sizeof description;
      int verbosity = 0;
      int binding = 0;
      int scope = 0;
      MPI_Datatype type = MPI_DATATYPE_NULL;
      MPI_T_enum enumeration = MPI_T_ENUM_NULL;
      if (MPI_T_cvar_get_info(i, name, &name_length, &verbosity, &type, &enumeration, description, &description_length,
                              &binding, &scope) != MPI_SUCCESS) {
        continue;
      }
      const std::string n(name);
      const std::string suffix = "_eager_limit";
      if (n.rfind("btl_", 0) != 0 || n.size() <= suffix.size() ||
          n.compare(n.size() - suffix.size(), suffix.size(), suffix) != 0 || n.find("_rndv_") != std::string::npos) {
        continue;
      }
      if (binding != MPI_T_BIND_NO_OBJECT) continue;
      MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
      int elements = 0;
      if (MPI_T_cvar_handle_alloc(i, nullptr, &handle, &elements) != MPI_SUCCESS) continue;
      if (elements == 1) {
        std::uint64_t value = 0;
        bool read = false;
        if (type == MPI_UNSIGNED_LONG || type == MPI_UNSIGNED_LONG_LONG || type == MPI_UINT64_T) {
          unsigned long long v = 0;  // the widest of the three
          if (type == MPI_UNSIGNED_LONG) {
            unsigned long u = 0;
            read = MPI_T_cvar_read(handle, &u) == MPI_SUCCESS;
            v = u;
          } else {
            read = MPI_T_cvar_read(handle, &v) == MPI_SUCCESS;
          }
          value = v;
        } else if (type == MPI_INT || type == MPI_UNSIGNED) {
          int v = 0;
          read = MPI_T_cvar_read(handle, &v) == MPI_SUCCESS && v >= 0;
          value = static_cast<std::uint64_t>(v);
        }
        if (read && value > 0) limits.emplace_back(n, value);
      }
      MPI_T_cvar_handle_free(&handle);
    }
  }
  MPI_T_finalize();
  std::sort(limits.begin(), limits.end());
  return limits;
}

std::string Communicator::processor_name() {
  char text[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  MPI_Get_processor_name(text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

std::string Communicator::affinity_cpus() {
  const std::vector<int> cpus = affinity_cpu_ids();
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

int Communicator::node_cores(bool across_nodes) {
  // Each process's affinity as a bit mask; OR-ed over the processes of its node.
  std::vector<unsigned char> mask(CPU_SETSIZE / 8, 0);
  for (int cpu : affinity_cpu_ids())
    mask[static_cast<std::size_t>(cpu / 8)] |= static_cast<unsigned char>(1u << (cpu % 8));
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  const int status =
      MPI_Allreduce(MPI_IN_PLACE, mask.data(), to_int(mask.size(), "node_cores"), MPI_UNSIGNED_CHAR, MPI_BOR, node);
  MPI_Comm_free(&node);
  check(status, "MPI_Allreduce");
  int cores = 0;
  for (unsigned char byte : mask) cores += std::popcount(byte);
  if (across_nodes) check(MPI_Allreduce(MPI_IN_PLACE, &cores, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  return cores;
}

MpiSession::MpiSession(int& argc, char**& argv) {
  check(MPI_Init(&argc, &argv), "MPI_Init");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void MpiSession::abort_job(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  throw std::runtime_error("MPI_Abort returned");
}

}  // namespace ccsim::measure
