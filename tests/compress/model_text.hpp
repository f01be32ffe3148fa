#pragma once

#include <string>

// Model documents for the compress tests, laid out so that line numbers are known:
// the head fills lines 1-13 and the settings start on line 15, one per line.

namespace ccsim::compress::test {

/// Lines 2-13 of an error-bounded model; `kind_lines` replaces lines 6-8 (kind, homomorphic, summable).
inline std::string head(const std::string& kind_lines =
                            "  \"kind\": \"error-bounded\",\n"
                            "  \"homomorphic\": false,\n"
                            "  \"summable\": true,\n",
                        const std::string& tail_lines =
                            "  \"error_mode\": \"REL\",\n"
                            "  \"dtype\": \"fp32\",\n") {
  return "  \"format\": \"ccsim-compressor\",\n"
         "  \"version\": 1,\n"
         "  \"name\": \"toy\",\n"
         "  \"description\": \"a toy model\",\n" +
         kind_lines +
         "  \"hardware\": \"a GPU\",\n"
         "  \"source\": \"test figures\",\n"
         "  \"where\": {\"default\": \"accelerator\", \"staging_Bps\": 2e10, \"source\": \"test\"},\n" +
         tail_lines;
}

/// A whole document: "{", the head, "settings": [ on line 14, the settings, "]", "}".
inline std::string document(const std::string& settings, const std::string& head_lines = head()) {
  return "{\n" + head_lines + "  \"settings\": [\n" + settings + "\n  ]\n}\n";
}

/// Two error-bounded settings: REL 1e-4 (ratio 6.28, 341/413 GB/s) and 1e-3 (ratio 22.3, 410/628 GB/s).
inline std::string two_settings() {
  return "    {\"error_bound\": 1e-4, \"ratio\": 6.28, \"compress_Bps\": 341e9, \"decompress_Bps\": 413e9, "
         "\"t0_s\": 1e-5, \"source\": \"test\"},\n"
         "    {\"error_bound\": 1e-3, \"ratio\": 22.3, \"compress_Bps\": 410e9, \"decompress_Bps\": 628e9, "
         "\"t0_s\": 2e-5, \"source\": \"test\"}";
}

inline const std::string kQuantizerKind =
    "  \"kind\": \"quantizer\",\n  \"homomorphic\": false,\n  \"summable\": false,\n";
inline const std::string kSparsifierKind =
    "  \"kind\": \"sparsifier\",\n  \"homomorphic\": false,\n  \"summable\": false,\n";

}  // namespace ccsim::compress::test
