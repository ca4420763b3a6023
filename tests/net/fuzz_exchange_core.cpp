// libFuzzer target for the whole protocol: lines of every message type through a complete
// ExchangeCore (ExchangeCoreFuzz.h). Build with scripts/fuzz.sh (clang, -fsanitize=fuzzer,
// address,undefined), run ./fuzz_exchange_core tests/net/corpus/exchange
#include "ExchangeCoreFuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tessera::net::fuzz::runExchange(data, size);
  return 0;
}
