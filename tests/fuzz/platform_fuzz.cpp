// The platform reader, building the topology. A size guard skips inputs that ask for more
// than a few thousand nodes or fat-tree levels: the reader's own limits allow platforms of
// millions of accelerators, which would make the fuzzer find only slow inputs and OOMs.

#include <optional>

#include "core/json.hpp"
#include "core/parse.hpp"
#include "fuzz_target.hpp"
#include "topology/platform.hpp"
#include "topology/summary.hpp"

namespace {

using namespace ccsim;

/// The integer at `key` of `object`, when it is one (anything else is the reader's to reject).
std::optional<double> number_at(const json::Value* object, std::string_view key) {
  const json::Value* value = object != nullptr && object->is_object() ? object->find(key) : nullptr;
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return parse_double(value->text());
}

bool too_big(std::string_view text) {
  json::Value root;
  try {
    root = json::parse(text, "fuzz.json");
  } catch (const InputError&) {
    return false;  // the reader reports it
  }
  constexpr double kMaxNodes = 4096;
  constexpr double kMaxPerNode = 64;
  const json::Value* node = root.is_object() ? root.find("node") : nullptr;
  const json::Value* network = root.is_object() ? root.find("network") : nullptr;
  if (number_at(&root, "nodes").value_or(0) > kMaxNodes) return true;
  if (number_at(node, "accelerators").value_or(0) > kMaxPerNode) return true;
  if (number_at(node, "cores_per_node").value_or(0) > kMaxPerNode) return true;
  if (number_at(node, "nics").value_or(0) > 16) return true;
  if (number_at(network, "global_ports").value_or(0) > 64) return true;
  const json::Value* levels = network != nullptr && network->is_object() ? network->find("levels") : nullptr;
  if (levels != nullptr && levels->items().size() > 8) return true;
  return false;
}

}  // namespace

CCSIM_FUZZ_TARGET(platform) {
  const std::string_view text = fuzz::as_text(data, size);
  if (too_big(text)) return 0;
  fuzz::input_errors_only([&] {
    topology::Platform platform = topology::parse_platform(text, "fuzz.json");
    const topology::Network& network = platform.network;
    const int accelerators = network.accelerator_count();
    if (accelerators < 1) __builtin_trap();
    // Routes and their cost, from the first accelerator to the last and to one in the middle.
    (void)network.route(0, accelerators - 1);
    (void)network.route(accelerators / 2, 0);
    // What `ccsim platform show` computes (max-flow bisection, diameter) on small platforms.
    if (accelerators <= 128) (void)topology::format_summary(platform, topology::summarize(platform));
  });
  return 0;
}
