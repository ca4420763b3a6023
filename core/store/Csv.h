#pragma once
// CSV fields as RFC 4180 writes them: quoted when they hold a comma, quote or line break, with
// quotes doubled. One implementation for every CSV the programs write or read.
#include <string>
#include <vector>

namespace tessera::store {

[[nodiscard]] std::string csvQuote(const std::string& s);
// Splits one line into fields; `ok` is false when a quoted field is not closed.
[[nodiscard]] std::vector<std::string> csvSplit(const std::string& line, bool& ok);

}  // namespace tessera::store
