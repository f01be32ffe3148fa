#pragma once

#include "core/index.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

namespace ccsim::topology {

/// What a vertex of the network graph is.
enum class VertexKind : std::uint8_t {
  kAccelerator,  ///< a compute device that runs one rank (GPU, DCU, a Sunway processor, ...)
  kNodeHub,      ///< the inside of a node: PCIe/NVLink fabric, host memory; NICs hang off it
  kSwitch,       ///< a network switch (or a group of switches modelled as one, see Link::count)
};

struct VertexInfo {
  VertexKind kind = VertexKind::kSwitch;
  std::int32_t node = -1;   ///< accelerators and hubs: their node
  std::int32_t index = -1;  ///< accelerator: index in node; switch: index within its level
  std::int32_t level = 0;   ///< switch: 1 = leaf, increasing towards the root
};

/// How the two directions of a link share its capacity.
enum class Sharing : std::uint8_t {
  kSplitDuplex,  ///< full duplex: each direction has the whole bandwidth
  kShared,       ///< both directions share one bandwidth
};
std::string_view sharing_name(Sharing sharing);

/// One link between two vertices, possibly a trunk of parallel cables. A single flow gets
/// at most `bandwidth_Bps` (one cable); all flows together get at most `capacity_Bps`
/// (all cables, >= bandwidth_Bps). This is the fluid-model view of a trunk with perfect
/// load balancing, which is how a fat-tree's oversubscribed levels are represented.
struct Link {
  double bandwidth_Bps = 0;  ///< per flow; per direction for split-duplex links, in total for shared ones
  double capacity_Bps = 0;   ///< all flows together; 0 when building means "= bandwidth_Bps"
  double latency_s = 0;
  Sharing sharing = Sharing::kSplitDuplex;
  std::uint16_t tier = 0;  ///< index into Network::tiers()

  /// Parallel cables (capacity / bandwidth; may be fractional when a ratio is given exactly).
  double cables() const { return capacity_Bps / bandwidth_Bps; }
};

/// A class of links that share a description (the intra-node link, the NIC, fat-tree level 2...).
struct Tier {
  std::string name;
  std::string source;           ///< where its figures come from, or "estimate: ..."
  double oversubscription = 0;  ///< fat-tree levels: down capacity / up capacity; 0 = not applicable
};

/// One traversal of a link on a route. `forward` means from the link's first endpoint to its
/// second (child to parent in trees); split-duplex links have a separate capacity per direction.
struct Hop {
  std::uint32_t link;
  bool forward;
};

/// The compute device of a platform.
struct AcceleratorSpec {
  std::string model;
  double flops = 0;       ///< sustained FLOP/s used for operators given in FLOPs
  double reduce_Bps = 0;  ///< rate of an elementwise reduction (bytes of one operand per second)
  double memory_Bps = 0;  ///< memory bandwidth, 0 if unknown
  /// Memory capacity of one accelerator (what model states and activations must fit in), 0 if
  /// unknown: `trace synth` checks a job against it.
  double memory_bytes = 0;
  std::string source;
  /// One CPU core per rank slot (a platform node with "cores_per_node"): ranks may outnumber
  /// the cores, and their compute durations, measured under that sharing, are not shared again.
  bool cpu_core = false;
};

/// Routes between two switches of the inter-node fabric. Topology builders provide one.
class FabricRouter {
 public:
  virtual ~FabricRouter() = default;
  /// Appends the hops from switch vertex `from` to switch vertex `to` (none when equal).
  virtual void route(std::size_t from, std::size_t to, std::vector<Hop>& out) const = 0;
  /// Marks in `used` (indexed by link id) every fabric link a route between any two of
  /// `switches` may take. The default marks all of `fabric_links`.
  virtual void mark_links(const std::vector<std::size_t>& switches, const std::vector<std::uint32_t>& fabric_links,
                          std::vector<bool>& used) const;
};

/// The network of a platform as a Boost.Graph graph: accelerators, node hubs, switches and
/// the links between them, with the routing that the engine simulates. Accelerators are
/// numbered node-major (accelerator a is index a % G of node a / G). A NetworkBuilder
/// (network_builder.hpp) makes one; this class answers queries only.
class Network {
 public:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexInfo,
                                      boost::property<boost::edge_index_t, std::uint32_t>>;
  using VertexId = std::size_t;

  // Default-constructible and movable, not copyable (the fabric router is owned): the
  // compiler's own constructors, declared by none.

  const Graph& graph() const { return graph_; }
  std::size_t vertex_count() const { return boost::num_vertices(graph_); }
  std::size_t link_count() const { return links_.size(); }
  const Link& link(std::uint32_t id) const { return links_[id]; }
  VertexId link_source(std::uint32_t id) const { return ends_[id].first; }
  VertexId link_target(std::uint32_t id) const { return ends_[id].second; }
  const VertexInfo& vertex(VertexId v) const { return graph_[v]; }
  const std::vector<Tier>& tiers() const { return tiers_; }

  int node_count() const { return nodes_; }
  int accelerators_per_node() const { return per_node_; }
  int accelerator_count() const { return nodes_ * per_node_; }
  int nics_per_node() const { return nics_; }
  /// The link of accelerator `a` to its node hub, and of NIC k of node n to the fabric.
  std::uint32_t intra_link(int accelerator) const { return at(intra_link_, accelerator); }
  std::uint32_t nic_link(int node, int nic) const { return at(nic_link_, node * nics_ + nic); }
  VertexId accelerator_vertex(int accelerator) const { return at(accelerators_, accelerator); }
  int node_of(int accelerator) const { return accelerator / per_node_; }
  const AcceleratorSpec& accelerator() const { return accelerator_; }

  /// The hops a message from accelerator `src` to accelerator `dst` traverses.
  void route(int src, int dst, std::vector<Hop>& out) const;
  std::vector<Hop> route(int src, int dst) const;

  /// Latency and bottleneck of a route: what a lone message of n bytes costs, latency + n / bandwidth.
  struct PathCost {
    double latency_s = 0;
    double bandwidth_Bps = 0;  ///< bottleneck; +inf for an empty route
    std::size_t hops = 0;
  };
  PathCost path_cost(int src, int dst) const;

  /// The links that routes among `accelerators` can take (by link id): their intra and NIC
  /// links and the fabric links between their switches. The engine creates only these, so a
  /// small job on a large machine costs what the job touches.
  std::vector<bool> links_used_by(const std::vector<int>& accelerators) const;

  std::string vertex_name(VertexId v) const;
  std::string link_name(std::uint32_t id) const;

 private:
  friend class NetworkBuilder;
  Graph graph_;
  std::vector<Link> links_;
  std::vector<std::pair<VertexId, VertexId>> ends_;
  std::vector<Tier> tiers_;
  std::unique_ptr<FabricRouter> fabric_;
  AcceleratorSpec accelerator_;

  int nodes_ = 0;
  int per_node_ = 1;
  int nics_ = 0;
  std::vector<VertexId> accelerators_;
  std::vector<VertexId> hubs_;
  std::vector<std::uint32_t> intra_link_;  ///< per accelerator: accelerator -> hub
  std::vector<std::uint32_t> nic_link_;    ///< per node * nics + k: hub -> switch
};

/// Routing in a tree of switches: up to the lowest common ancestor, then down. Each switch
/// knows its parent and the link to it; O(depth) per route, O(switches) memory.
class TreeRouter : public FabricRouter {
 public:
  explicit TreeRouter(std::size_t vertex_count);
  /// Declares `parent` as the parent of `child`, reached through `link` (forward = up).
  void set_parent(std::size_t child, std::size_t parent, std::uint32_t link);
  void route(std::size_t from, std::size_t to, std::vector<Hop>& out) const override;
  /// The paths from `switches` up to the root.
  void mark_links(const std::vector<std::size_t>& switches, const std::vector<std::uint32_t>& fabric_links,
                  std::vector<bool>& used) const override;

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  std::vector<std::uint32_t> parent_;
  std::vector<std::uint32_t> parent_link_;
};

}  // namespace ccsim::topology
