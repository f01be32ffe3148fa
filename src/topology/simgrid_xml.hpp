#pragma once

#include <cstdint>
#include <string>

#include "topology/network.hpp"

namespace ccsim::topology {

/// How an exported SimGrid platform routes.
enum class XmlRouting {
  kFull,      ///< an explicit route for every pair of accelerators: exactly ccsim's routes (N^2 entries)
  kDijkstra,  ///< every vertex and link, SimGrid computes shortest paths: the same routes on trees,
              ///< possibly other shortest paths on tori and dragonflies; O(N) entries
};

/// The routing of --routing `choice`: "full", "dijkstra", or "auto": full for a network of up
/// to kAutoFullAccelerators accelerators, Dijkstra beyond.
XmlRouting xml_routing_of(const std::string& choice, const Network& network);
inline constexpr int kAutoFullAccelerators = 64;

/// The most routes a Full export may write (about 100 MB of XML, 512 accelerators); a larger
/// platform is exported with Dijkstra routing, whose size grows with the links instead.
inline constexpr std::uint64_t kMaxFullRoutes = std::uint64_t{1} << 18;

/// The most links a Dijkstra export may write: about 300 bytes of XML each, so about 650 MB
/// (the Sunway OceanLight preset has 215,880 links, 66 MB).
inline constexpr std::uint64_t kMaxExportLinks = std::uint64_t{1} << 21;

/// The routes a Full export of `network` writes: one per ordered pair of accelerators.
std::uint64_t full_routes(const Network& network);

/// Throws InputError (field --routing) when an export of `network` with `routing` would
/// exceed the limits above (given here for tests), saying what to do instead.
void check_export_size(const Network& network, const std::string& platform_name, XmlRouting routing,
                       std::uint64_t max_full_routes = kMaxFullRoutes, std::uint64_t max_links = kMaxExportLinks);

/// The network as a SimGrid platform file (version 4.1): one host per accelerator (named
/// nodeN.accI, speed = the accelerator's flops), one link per link (SPLITDUPLEX or SHARED;
/// trunks get a FATPIPE per-cable limiter, as in the engine), with `bandwidth_factor` and
/// `latency_factor` applied like the engine does.
/// Why a Dijkstra export's routes differ from ccsim's (nodes with several NICs, each
/// accelerator on its rail), "" when they do not.
std::string dijkstra_caveat(const Network& network, XmlRouting routing);

std::string to_simgrid_xml(const Network& network, const std::string& platform_name, XmlRouting routing,
                           double bandwidth_factor = 1.0, double latency_factor = 1.0);

}  // namespace ccsim::topology
