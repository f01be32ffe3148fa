#include "measure/ucx_transport.hpp"

#include "measure/communicator.hpp"

#include <mpi.h>
#include <sched.h>

#include <thread>
#include <ucp/api/ucp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ccsim::measure {

namespace {

// Tag layout, high to low: context id (32 bits) | barrier flag (1) | barrier round (7) |
// source group rank (24). Receives match the whole tag, so a message matches only a receive
// of its own group, kind, round and source; UCX keeps the messages of one endpoint and tag
// in order, which gives in-order matching per pair.
constexpr int kRankBits = 24;
constexpr int kRoundBits = 7;
constexpr ucp_tag_t kFullMask = ~ucp_tag_t{0};
constexpr ucp_tag_t kBarrierFlag = ucp_tag_t{1} << (kRankBits + kRoundBits);

ucp_tag_t data_tag(std::uint32_t context_id, int source) {
  return (ucp_tag_t{context_id} << 32) | static_cast<ucp_tag_t>(source);
}

ucp_tag_t barrier_tag(std::uint32_t context_id, int round, int source) {
  return (ucp_tag_t{context_id} << 32) | kBarrierFlag | (static_cast<ucp_tag_t>(round) << kRankBits) |
         static_cast<ucp_tag_t>(source);
}

[[noreturn]] void throw_ucx(std::string_view what, ucs_status_t status) {
  throw std::runtime_error(fmt::format("ucx: {}: {}", what, ucs_status_string(status)));
}

void check_ucx(ucs_status_t status, std::string_view what) {
  if (status != UCS_OK) throw_ucx(what, status);
}

void check_mpi(int rc, std::string_view what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw std::runtime_error(fmt::format("mpi: {}: {}", what, std::string_view(text, length)));
}

/// The state of one send or receive, written by UCX's completion callbacks.
struct Completion {
  bool done = false;
  ucs_status_t status = UCS_OK;
  std::size_t length = 0;
};

void on_send_done(void* /*request*/, ucs_status_t status, void* user_data) {
  auto* completion = static_cast<Completion*>(user_data);
  completion->status = status;
  completion->done = true;
}

void on_recv_done(void* /*request*/, ucs_status_t status, const ucp_tag_recv_info_t* info, void* user_data) {
  auto* completion = static_cast<Completion*>(user_data);
  completion->status = status;
  completion->length = info != nullptr ? info->length : 0;
  completion->done = true;
}

// UCX is handed a valid address even for an empty buffer.
std::byte empty_buffer[1];

}  // namespace

class UcxWorld::Impl {
 public:
  Impl();
  ~Impl();
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  ucp_ep_h endpoint(int world_rank) const { return endpoints_.at(static_cast<std::size_t>(world_rank)); }

  /// Sends `send` with `send_tag` to world rank `send_to` (-1: none) and receives a message
  /// tagged `recv_tag` into `recv` (when `receive`); progresses until both are complete.
  /// Returns the received length. `describe_peer` names the source in errors.
  std::size_t exchange(int send_to, ucp_tag_t send_tag, std::span<const std::byte> send, bool receive,
                       ucp_tag_t recv_tag, std::span<std::byte> recv, const std::string& describe_peer);

 private:
  void release(bool collective) noexcept;
  void wait(void* request, Completion& completion);

  /// Progresses the worker once; when nothing progressed and this node runs more processes
  /// than it has cores, yields the core (as Open MPI's mpi_yield_when_idle does), so that a
  /// busy-polling process does not hold the core its peer needs to make the progress awaited.
  void progress();

  int rank_ = 0;
  int size_ = 0;
  bool yield_when_idle_ = false;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  std::vector<ucp_ep_h> endpoints_;
};

UcxWorld::Impl::Impl() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) throw std::runtime_error("ucx: UcxWorld needs MPI to be initialised first (it bootstraps UCX)");
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int local = 1;
  MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  yield_when_idle_ = local > Communicator::node_cores(false);
  try {
    ucp_config_t* config = nullptr;
    check_ucx(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read");
    ucp_params_t params{};
    params.field_mask = UCP_PARAM_FIELD_FEATURES;
    params.features = UCP_FEATURE_TAG;
    ucs_status_t status = ucp_init(&params, config, &context_);
    ucp_config_release(config);
    check_ucx(status, "ucp_init");

    ucp_worker_params_t worker_params{};
    worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;
    check_ucx(ucp_worker_create(context_, &worker_params, &worker_), "ucp_worker_create");

    ucp_address_t* address = nullptr;
    std::size_t address_length = 0;
    check_ucx(ucp_worker_get_address(worker_, &address, &address_length), "ucp_worker_get_address");
    const int my_length = static_cast<int>(address_length);
    std::vector<int> lengths(static_cast<std::size_t>(size_));
    std::vector<int> offsets(static_cast<std::size_t>(size_));
    std::vector<char> addresses;
    try {
      check_mpi(MPI_Allgather(&my_length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD),
                "MPI_Allgather of UCX worker address lengths");
      int total = 0;
      for (std::size_t i = 0; i < lengths.size(); ++i) {
        offsets[i] = total;
        total += lengths[i];
      }
      addresses.resize(static_cast<std::size_t>(total));
      check_mpi(MPI_Allgatherv(address, my_length, MPI_BYTE, addresses.data(), lengths.data(), offsets.data(), MPI_BYTE,
                               MPI_COMM_WORLD),
                "MPI_Allgatherv of UCX worker addresses");
    } catch (...) {
      ucp_worker_release_address(worker_, address);
      throw;
    }
    ucp_worker_release_address(worker_, address);

    endpoints_.assign(static_cast<std::size_t>(size_), nullptr);
    for (int peer = 0; peer < size_; ++peer) {
      ucp_ep_params_t ep_params{};
      ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
      ep_params.address =
          reinterpret_cast<const ucp_address_t*>(addresses.data() + offsets[static_cast<std::size_t>(peer)]);
      check_ucx(ucp_ep_create(worker_, &ep_params, &endpoints_[static_cast<std::size_t>(peer)]),
                fmt::format("ucp_ep_create to rank {}", peer));
    }
  } catch (...) {
    // Only this process may have failed: a collective teardown could wait for ever.
    release(false);
    throw;
  }
}

UcxWorld::Impl::~Impl() { release(true); }

void UcxWorld::Impl::release(bool collective) noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  collective = collective && !finalized;
  // Flush mode lets what is in flight arrive; without the peers (not collective) force it.
  std::vector<void*> closing;
  for (ucp_ep_h& ep : endpoints_) {
    if (ep == nullptr) continue;
    ucp_request_param_t param{};
    if (!collective) {
      param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    }
    void* request = ucp_ep_close_nbx(ep, &param);
    if (request != nullptr && !UCS_PTR_IS_ERR(request)) closing.push_back(request);
    ep = nullptr;
  }
  // Errors cannot be reported from a destructor; a failed close only leaks.
  for (void* request : closing) {
    while (ucp_request_check_status(request) == UCS_INPROGRESS) progress();
    ucp_request_free(request);
  }
  if (collective && worker_ != nullptr) {
    // Keep progressing UCX while waiting, so that peers still closing get their answers.
    MPI_Request barrier = MPI_REQUEST_NULL;
    if (MPI_Ibarrier(MPI_COMM_WORLD, &barrier) == MPI_SUCCESS) {
      int done = 0;
      while (!done) {
        progress();
        if (MPI_Test(&barrier, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
      }
    }
  }
  if (worker_ != nullptr) ucp_worker_destroy(worker_);
  worker_ = nullptr;
  if (context_ != nullptr) ucp_cleanup(context_);
  context_ = nullptr;
}

void UcxWorld::Impl::progress() {
  if (ucp_worker_progress(worker_) == 0 && yield_when_idle_) sched_yield();
}

void UcxWorld::Impl::wait(void* request, Completion& completion) {
  while (!completion.done) progress();
  ucp_request_free(request);
}

std::size_t UcxWorld::Impl::exchange(int send_to, ucp_tag_t send_tag, std::span<const std::byte> send, bool receive,
                                     ucp_tag_t recv_tag, std::span<std::byte> recv, const std::string& describe_peer) {
  Completion received;
  Completion sent;
  void* recv_request = nullptr;
  void* send_request = nullptr;

  if (receive) {
    ucp_request_param_t param{};
    // Always through the callback: UCX 1.13 reports no length for a receive that completes
    // at once from the unexpected queue (recv_info.tag_info stays zero).
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
    param.cb.recv = on_recv_done;
    param.user_data = &received;
    void* buffer = recv.empty() ? empty_buffer : recv.data();
    ucs_status_ptr_t request = ucp_tag_recv_nbx(worker_, buffer, recv.size(), recv_tag, kFullMask, &param);
    if (UCS_PTR_IS_ERR(request)) throw_ucx(fmt::format("receive from {}", describe_peer), UCS_PTR_STATUS(request));
    if (request == nullptr) throw std::logic_error("ucx: a receive denied immediate completion returned no request");
    recv_request = request;
  } else {
    received.done = true;
  }

  if (send_to >= 0) {
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send = on_send_done;
    param.user_data = &sent;
    const void* buffer = send.empty() ? empty_buffer : send.data();
    ucs_status_ptr_t request = ucp_tag_send_nbx(endpoint(send_to), buffer, send.size(), send_tag, &param);
    if (UCS_PTR_IS_ERR(request)) {
      if (recv_request != nullptr) {
        ucp_request_cancel(worker_, recv_request);
        wait(recv_request, received);
      }
      throw_ucx(fmt::format("send of {} B to world rank {}", send.size(), send_to), UCS_PTR_STATUS(request));
    }
    if (request == nullptr) {
      sent.done = true;
    } else {
      send_request = request;
    }
  } else {
    sent.done = true;
  }

  if (recv_request != nullptr) wait(recv_request, received);
  if (send_request != nullptr) wait(send_request, sent);

  if (sent.status != UCS_OK) {
    throw_ucx(fmt::format("send of {} B to world rank {}", send.size(), send_to), sent.status);
  }
  if (received.status == UCS_ERR_MESSAGE_TRUNCATED) {
    throw std::runtime_error(fmt::format("ucx: receive from {}: message longer than the {} B buffer ({})",
                                         describe_peer, recv.size(), ucs_status_string(received.status)));
  }
  if (received.status != UCS_OK) throw_ucx(fmt::format("receive from {}", describe_peer), received.status);
  return received.length;
}

namespace {

/// A process group on a UcxWorld: group-local ranks, tags carrying the group's context id.
class UcxGroupTransport final : public Transport {
 public:
  UcxGroupTransport(std::shared_ptr<UcxWorld::Impl> world, std::vector<int> world_ranks, int rank,
                    std::uint32_t context_id)
      : world_(std::move(world)), world_ranks_(std::move(world_ranks)), rank_(rank), context_id_(context_id) {}

  std::string_view name() const override { return "ucx"; }
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(world_ranks_.size()); }

  std::size_t exchange(int send_peer, std::span<const std::byte> send, int recv_peer,
                       std::span<std::byte> recv) override {
    check_peer(send_peer, "send_peer");
    check_peer(recv_peer, "recv_peer");
    if (recv_peer < 0 && send_peer < 0) return 0;
    return world_->exchange(send_peer < 0 ? -1 : world_of(send_peer), data_tag(context_id_, rank_), send,
                            recv_peer >= 0, recv_peer < 0 ? 0 : data_tag(context_id_, recv_peer), recv,
                            describe(recv_peer));
  }

  // Dissemination barrier: in round k, tell rank + 2^k and hear from rank - 2^k.
  void barrier() override {
    const int n = size();
    for (int round = 0, distance = 1; distance < n; ++round, distance *= 2) {
      const int to = (rank_ + distance) % n;
      const int from = (rank_ - distance + n) % n;
      world_->exchange(world_of(to), barrier_tag(context_id_, round, rank_), {}, true,
                       barrier_tag(context_id_, round, from), {}, describe(from) + " in a barrier");
    }
  }

 private:
  int world_of(int peer) const { return world_ranks_[static_cast<std::size_t>(peer)]; }

  void check_peer(int peer, std::string_view what) const {
    if (peer < -1 || peer >= size()) {
      throw std::invalid_argument(
          fmt::format("ucx transport: {} {} out of range: expected -1..{}", what, peer, size() - 1));
    }
  }

  std::string describe(int peer) const {
    if (peer < 0) return "nobody";
    return fmt::format("group rank {} (world rank {}, context {})", peer, world_of(peer), context_id_);
  }

  std::shared_ptr<UcxWorld::Impl> world_;
  std::vector<int> world_ranks_;
  int rank_;
  std::uint32_t context_id_;
};

}  // namespace

UcxWorld::UcxWorld() : impl_(std::make_shared<Impl>()) {}

UcxWorld::~UcxWorld() = default;

int UcxWorld::rank() const { return impl_->rank(); }
int UcxWorld::size() const { return impl_->size(); }

std::unique_ptr<Transport> UcxWorld::group(std::vector<int> world_ranks_of_group, std::uint32_t context_id) {
  if (world_ranks_of_group.empty()) throw std::invalid_argument("ucx group: no ranks");
  if (world_ranks_of_group.size() > (std::size_t{1} << kRankBits)) {
    throw std::invalid_argument(
        fmt::format("ucx group: {} ranks, at most {}", world_ranks_of_group.size(), std::size_t{1} << kRankBits));
  }
  std::set<int> seen;
  int my_rank = -1;
  for (std::size_t i = 0; i < world_ranks_of_group.size(); ++i) {
    const int world_rank = world_ranks_of_group[i];
    if (world_rank < 0 || world_rank >= size()) {
      throw std::invalid_argument(
          fmt::format("ucx group: world rank {} out of range: expected 0..{}", world_rank, size() - 1));
    }
    if (!seen.insert(world_rank).second) {
      throw std::invalid_argument(fmt::format("ucx group: world rank {} listed twice", world_rank));
    }
    if (world_rank == rank()) my_rank = static_cast<int>(i);
  }
  if (my_rank < 0) {
    throw std::invalid_argument(fmt::format("ucx group: this process (world rank {}) is not a member", rank()));
  }
  return std::make_unique<UcxGroupTransport>(impl_, std::move(world_ranks_of_group), my_rank, context_id);
}

std::string UcxWorld::transports_to(int world_rank) const {
  if (world_rank < 0 || world_rank >= size()) {
    throw std::invalid_argument(fmt::format("ucx: world rank {} out of range: expected 0..{}", world_rank, size() - 1));
  }
  char* text = nullptr;
  std::size_t length = 0;
  FILE* stream = open_memstream(&text, &length);
  if (stream == nullptr) throw std::runtime_error("ucx: open_memstream failed");
  ucp_ep_print_info(impl_->endpoint(world_rank), stream);
  std::fclose(stream);
  const std::string info(text, length);
  std::free(text);
  // Lanes read "lane[0]:  8:posix/memory.0 md[4] ..."; collect "posix/memory" once each.
  std::vector<std::string> found;
  for (std::size_t at = info.find("lane["); at != std::string::npos; at = info.find("lane[", at + 1)) {
    const std::size_t colon = info.find(':', info.find("]:", at) + 2);
    if (colon == std::string::npos) break;
    const std::size_t start = colon + 1;
    const std::size_t end = info.find_first_of(" \n", start);
    std::string resource = info.substr(start, end - start);
    if (const std::size_t dot = resource.rfind('.'); dot != std::string::npos) resource.resize(dot);
    if (std::find(found.begin(), found.end(), resource) == found.end()) found.push_back(resource);
  }
  return fmt::format("{}", fmt::join(found, ","));
}

std::string UcxWorld::describe() {
  const auto env = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value != nullptr && *value != '\0' ? value : "all");
  };
  return fmt::format("UCX {}, UCX_TLS={}, UCX_NET_DEVICES={}", ucp_get_version_string(), env("UCX_TLS"),
                     env("UCX_NET_DEVICES"));
}

}  // namespace ccsim::measure
