#pragma once
// One engine run over arbitrary bytes as `tessera-cli match` input: shared by the libFuzzer
// target and by the mutation test that runs in CI. Returns false if an invariant broke.
#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera::testing {

// Runs `bytes` through `match` with both matchers; checks that both exit 0, agree byte for byte,
// and print only valid JSON objects. `why` receives the first failure.
bool runMatchOnBytes(const std::uint8_t* data, std::size_t size, std::string& why);

}  // namespace tessera::testing
