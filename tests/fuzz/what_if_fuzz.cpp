// `--set KEY=VALUE` settings of what-if runs (src/study/what_if): one setting per line.

#include <string>
#include <vector>

#include "study/what_if.hpp"
#include "fuzz_target.hpp"

CCSIM_FUZZ_TARGET(what_if) {
  std::vector<std::string> settings(1);
  for (char c : ccsim::fuzz::as_text(data, size)) {
    if (c == '\n')
      settings.emplace_back();
    else
      settings.back() += c;
  }
  ccsim::fuzz::input_errors_only([&] { (void)ccsim::study::parse_what_if(settings); });
  return 0;
}
