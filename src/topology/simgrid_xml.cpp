#include "topology/simgrid_xml.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/markup.hpp"

namespace ccsim::topology {
namespace {

std::string escape(const std::string& text) { return xml_escape(text); }

bool is_trunk(const Link& link) { return link.capacity_Bps > link.bandwidth_Bps * (1 + 1e-12); }

/// Link names are the engine's, with ':' (reserved in SimGrid ids of split links) as '/'.
std::string link_id(const Network& network, std::uint32_t id) {
  std::string name = network.link_name(id);
  for (char& c : name) {
    if (c == ':') c = '/';
  }
  return name;
}

/// The link_ctn elements of one hop.
std::string hop_xml(const Network& network, const Hop& hop, const char* indent) {
  const Link& link = network.link(hop.link);
  std::string id = escape(link_id(network, hop.link));
  std::string out;
  if (link.sharing == Sharing::kSplitDuplex) {
    out += fmt::format("{}<link_ctn id=\"{}\" direction=\"{}\"/>\n", indent, id, hop.forward ? "UP" : "DOWN");
  } else {
    out += fmt::format("{}<link_ctn id=\"{}\"/>\n", indent, id);
  }
  if (is_trunk(link)) out += fmt::format("{}<link_ctn id=\"{}/cable\"/>\n", indent, id);
  return out;
}

std::string vertex_id(const Network& network, Network::VertexId v) { return escape(network.vertex_name(v)); }

}  // namespace

XmlRouting xml_routing_of(const std::string& choice, const Network& network) {
  const bool full = choice == "full" || (choice == "auto" && network.accelerator_count() <= kAutoFullAccelerators);
  return full ? XmlRouting::kFull : XmlRouting::kDijkstra;
}

std::uint64_t full_routes(const Network& network) {
  const auto n = static_cast<std::uint64_t>(network.accelerator_count());
  return n < 2 ? 0 : n * (n - 1);
}

void check_export_size(const Network& network, const std::string& platform_name, XmlRouting routing,
                       std::uint64_t max_full_routes, std::uint64_t max_links) {
  if (routing == XmlRouting::kFull && full_routes(network) > max_full_routes) {
    throw InputError("command line", 0, "--routing",
                     fmt::format("full routing writes a route per pair of accelerators, {} x {} = {} for platform "
                                 "\"{}\", more than the limit of {}; use --routing dijkstra",
                                 network.accelerator_count(), network.accelerator_count() - 1, full_routes(network),
                                 platform_name, max_full_routes));
  }
  if (static_cast<std::uint64_t>(network.link_count()) > max_links) {
    throw InputError("command line", 0, "--routing",
                     fmt::format("platform \"{}\" has {} links, more than the {} an export may write (about 300 bytes "
                                 "of XML each); export a smaller platform (fewer nodes or groups) of the same shape",
                                 platform_name, network.link_count(), max_links));
  }
}

std::string dijkstra_caveat(const Network& network, XmlRouting routing) {
  if (routing != XmlRouting::kDijkstra || network.nics_per_node() < 2 || network.accelerators_per_node() < 2) return "";
  return fmt::format(
      "SimGrid's shortest paths differ from ccsim's routes here: in ccsim accelerator j of a node leaves through NIC "
      "j % {} (its rail), and the node's {} NICs hang off one node hub in the graph, so SimGrid may send several "
      "accelerators' traffic through one NIC and between rails without the spine; --routing full writes ccsim's routes "
      "(up to 512 accelerators)",
      network.nics_per_node(), network.nics_per_node());
}

std::string to_simgrid_xml(const Network& network, const std::string& platform_name, XmlRouting routing,
                           double bandwidth_factor, double latency_factor) {
  std::string out;
  out += "<?xml version='1.0'?>\n";
  out += "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  out += fmt::format("<!-- {} exported by ccsim; routes are {} -->\n", escape(platform_name),
                     routing == XmlRouting::kFull ? "ccsim's own (Full)" : "SimGrid shortest paths (Dijkstra)");
  if (const std::string caveat = dijkstra_caveat(network, routing); !caveat.empty()) {
    std::string text = caveat;  // an XML comment may not hold "--"
    for (std::size_t at = text.find("--"); at != std::string::npos; at = text.find("--"))
      text.replace(at, 2, "the option ");
    out += fmt::format("<!-- NOTE {} -->\n", text);
  }
  out += "<platform version=\"4.1\">\n";
  out += fmt::format("  <zone id=\"{}\" routing=\"{}\">\n", escape(platform_name),
                     routing == XmlRouting::kFull ? "Full" : "Dijkstra");
  for (int a = 0; a < network.accelerator_count(); ++a) {
    out += fmt::format("    <host id=\"{}\" speed=\"{}f\"/>\n", vertex_id(network, network.accelerator_vertex(a)),
                       network.accelerator().flops);
  }
  if (routing == XmlRouting::kDijkstra) {
    for (Network::VertexId v = 0; v < network.vertex_count(); ++v) {
      if (network.vertex(v).kind != VertexKind::kAccelerator)
        out += fmt::format("    <router id=\"{}\"/>\n", vertex_id(network, v));
    }
  }
  for (std::uint32_t id = 0; id < network.link_count(); ++id) {
    const Link& link = network.link(id);
    out +=
        fmt::format("    <link id=\"{}\" bandwidth=\"{}Bps\" latency=\"{}s\" sharing_policy=\"{}\"/>\n",
                    escape(link_id(network, id)), link.capacity_Bps * bandwidth_factor, link.latency_s * latency_factor,
                    link.sharing == Sharing::kSplitDuplex ? "SPLITDUPLEX" : "SHARED");
    // A trunk's per-flow cable limit, as a FATPIPE link (an XML platform has no per-flow
    // bound). Only among flows of equal latency is that the cable's rate: SimGrid weights
    // sharing by latency, so with shorter routes on a cable a longer route's flow gets the
    // latency ratio of it. ccsim's own engine bounds each message instead (GraphZone).
    if (is_trunk(link)) {
      out += fmt::format("    <link id=\"{}/cable\" bandwidth=\"{}Bps\" latency=\"0s\" sharing_policy=\"FATPIPE\"/>\n",
                         escape(link_id(network, id)), link.bandwidth_Bps * bandwidth_factor);
    }
  }
  if (routing == XmlRouting::kFull) {
    std::vector<Hop> hops;
    for (int a = 0; a < network.accelerator_count(); ++a) {
      for (int b = 0; b < network.accelerator_count(); ++b) {
        if (a == b) continue;
        hops.clear();
        network.route(a, b, hops);
        out += fmt::format("    <route src=\"{}\" dst=\"{}\" symmetrical=\"NO\">\n",
                           vertex_id(network, network.accelerator_vertex(a)),
                           vertex_id(network, network.accelerator_vertex(b)));
        for (const Hop& hop : hops) out += hop_xml(network, hop, "      ");
        out += "    </route>\n";
      }
    }
  } else {
    // SimGrid's graph zones hold one route per pair of vertices: parallel links (two NICs
    // of a node on one switch) keep the first, and the file says how many were left out.
    std::set<std::pair<Network::VertexId, Network::VertexId>> joined;
    int parallel = 0;
    for (std::uint32_t id = 0; id < network.link_count(); ++id) {
      const Network::VertexId a = network.link_source(id);
      const Network::VertexId b = network.link_target(id);
      if (!joined.insert({std::min(a, b), std::max(a, b)}).second) {
        ++parallel;
        continue;
      }
      out += fmt::format("    <route src=\"{}\" dst=\"{}\">\n", vertex_id(network, network.link_source(id)),
                         vertex_id(network, network.link_target(id)));
      out += hop_xml(network, Hop{id, true}, "      ");
      out += "    </route>\n";
    }
    if (parallel > 0) {
      out += fmt::format("    <!-- {} parallel link(s) between already joined vertices are not routed here -->\n",
                         parallel);
    }
  }
  out += "  </zone>\n</platform>\n";
  return out;
}

}  // namespace ccsim::topology
