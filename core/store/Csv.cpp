#include "core/store/Csv.h"

namespace tessera::store {

std::string csvQuote(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::vector<std::string> csvSplit(const std::string& line, bool& ok) {
  std::vector<std::string> out(1);
  bool quoted = false;
  ok = true;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"')
        quoted = false;
      else
        out.back() += c;
    } else if (c == '"')
      quoted = true;
    else if (c == ',')
      out.emplace_back();
    else if (c != '\r')
      out.back() += c;
  }
  if (quoted) ok = false;
  return out;
}

}  // namespace tessera::store
