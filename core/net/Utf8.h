#pragma once
// UTF-8 as RFC 3629 defines it (no overlong forms, no surrogates, nothing above U+10FFFF):
// the parser refuses lines that are not, and the server's string escaper passes it through.
#include <cstddef>
#include <string_view>

namespace tessera::net {

// The length of the well-formed UTF-8 sequence starting at s[i] (1 to 4), or 0 if there is none.
inline std::size_t utf8SequenceLength(std::string_view s, std::size_t i) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = at(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the range of the second byte
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;  // U+D800..U+DFFF are surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (s.size() - i < n) return 0;
  if (at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (at(i + k) < 0x80 || at(i + k) > 0xbf) return 0;
  }
  return n;
}

// The offset of the first byte that does not start a well-formed sequence, or npos.
inline std::size_t firstInvalidUtf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8SequenceLength(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

// The longest prefix of at most `maxBytes` bytes that does not split a sequence.
inline std::string_view utf8Prefix(std::string_view s, std::size_t maxBytes) {
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t n = utf8SequenceLength(s, i);
    if (n == 0 || i + n > maxBytes) break;
    i += n;
  }
  return s.substr(0, i);
}

}  // namespace tessera::net
