#include "engine/xml_check.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include "core/parse.hpp"
#include "engine/child_process.hpp"
#include "engine/sg_engine.hpp"

namespace ccsim::engine {

double xml_transfer_time(const std::string& path, const std::string& src, const std::string& dst, double bytes) {
  std::string answer = run_in_child([&] {
    namespace sg4 = simgrid::s4u;
    auto engine = make_engine(256, false);
    try {
      engine->load_platform(path);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("SimGrid cannot load {}: {}", path, e.what()));
    }
    sg4::Host* from = sg4::Host::by_name_or_null(src);
    sg4::Host* to = sg4::Host::by_name_or_null(dst);
    if (from == nullptr || to == nullptr) {
      throw std::runtime_error(fmt::format("{}: no host named \"{}\"", path, from == nullptr ? src : dst));
    }
    static int token = 0;
    double done = -1;
    sg4::Actor::create("sender", from,
                       [&] { sg4::Mailbox::by_name("xml-check")->put(&token, static_cast<std::uint64_t>(bytes)); });
    sg4::Actor::create("receiver", to, [&] {
      sg4::Mailbox::by_name("xml-check")->get<int>();
      done = sg4::Engine::get_clock();
    });
    engine->run();
    return fmt::format("{:.17g}", done);
  });
  auto value = parse_double(answer);
  if (!value) throw std::runtime_error("xml_transfer_time: bad answer from the simulation process");
  return *value;
}

}  // namespace ccsim::engine
