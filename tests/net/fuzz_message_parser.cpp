// libFuzzer target for the protocol's message parser. Build with
// -DTESSERA_BUILD_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++, run ./fuzz_message_parser corpus/
#include "MessageParserFuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tessera::net::fuzz::parseOne(data, size);
  return 0;
}
