// Cost of reading one client message: parseClientMessage (the flat fast path for new_order and
// cancel, FlatMessageParser.h) against the JSON tree parser alone, on the hot messages and on
// one the fast path leaves to the tree parser. Prints nanoseconds per message, after a warm-up.
#include "core/net/ClientMessage.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace tessera::net;

namespace {

template <typename Parse>
double nanosPerMessage(const std::vector<std::string>& lines, Parse parse) {
  std::size_t ok = 0;
  for (int warm = 0; warm < 20'000; ++warm) ok += parse(lines[warm % lines.size()]).index() == 0;
  constexpr int kRounds = 1'000'000;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kRounds; ++i) ok += parse(lines[i % lines.size()]).index() == 0;
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  if (ok == 0) std::printf("(nothing parsed)\n");
  return ns / kRounds;
}

}  // namespace

int main() {
  std::vector<std::string> orders, cancels, nested;
  for (int i = 0; i < 1000; ++i) {
    const std::string n = std::to_string(i);
    orders.push_back("{\"type\":\"new_order\",\"cl_ord_id\":\"" + n + "\",\"side\":\"" + (i % 2 ? "buy" : "sell") +
                     "\",\"cluster\":1,\"gpus\":8,\"start\":" + std::to_string(600000 + i) +
                     ",\"end\":" + std::to_string(600024 + i) + ",\"limit\":2000000}");
    cancels.push_back("{\"type\":\"cancel\",\"cl_ord_id\":\"" + n + "\"}");
    nested.push_back("{\"type\":\"new_order\",\"cl_ord_id\":\"" + n +
                     "\",\"side\":\"buy\",\"constraints\":{\"accelerators\":[\"H100\"]},\"fill\":\"all_or_none\","
                     "\"gpus\":64,\"start\":600000,\"end\":600024,\"limit\":2000000}");
  }
  auto both = [](const std::string& s) { return parseClientMessage(s); };
  auto tree = [](const std::string& s) { return parseClientMessageWithTree(s); };
  std::printf("%-44s %10s %10s\n", "message", "parse", "tree only");
  std::printf("%-44s %7.0f ns %7.0f ns\n", "new_order (flat)", nanosPerMessage(orders, both),
              nanosPerMessage(orders, tree));
  std::printf("%-44s %7.0f ns %7.0f ns\n", "cancel", nanosPerMessage(cancels, both), nanosPerMessage(cancels, tree));
  std::printf("%-44s %7.0f ns %7.0f ns\n", "new_order with constraints (tree parser)", nanosPerMessage(nested, both),
              nanosPerMessage(nested, tree));
  return 0;
}
