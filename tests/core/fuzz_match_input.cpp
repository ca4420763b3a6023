// libFuzzer entry: arbitrary bytes as `tessera-cli match` input (build with -DTESSERA_BUILD_FUZZ=ON
// and clang; seed it with tests/scenarios/*.in.jsonl).
#include "MatchInputFuzzing.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string why;
  if (!tessera::testing::runMatchOnBytes(data, size, why)) std::abort();
  return 0;
}
