#include "AccountsCommand.h"

#include "core/net/AccountsFile.h"

#include <charconv>
#include <limits>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::exchange_app {
namespace {

using namespace tessera::net;

void usage(std::ostream& os) {
  os << "usage: tessera-exchange accounts add NAME --cash USD [--house] --file ACCOUNTS.json\n"
        "       tessera-exchange accounts rotate-key NAME --file ACCOUNTS.json\n\n"
        "Generates a random API key, prints it once on stdout and stores only its Argon2id\n"
        "hash in the accounts file (rewritten atomically; other entries are kept). `add`\n"
        "creates the file if it does not exist. Restart the exchange to apply the change.\n";
}

// "1000", "2.5", "0.000001": dollars with at most six decimals, as micro-dollars.
std::optional<Money> parseUsd(std::string_view s) {
  const std::size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (whole.empty() || frac.size() > 6 || (dot != std::string_view::npos && frac.empty())) return std::nullopt;
  Money dollars = 0, micros = 0;
  auto [p, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), dollars);
  if (ec != std::errc() || p != whole.data() + whole.size() || dollars < 0) return std::nullopt;
  if (!frac.empty()) {
    auto [q, ec2] = std::from_chars(frac.data(), frac.data() + frac.size(), micros);
    if (ec2 != std::errc() || q != frac.data() + frac.size()) return std::nullopt;
    for (std::size_t i = frac.size(); i < 6; ++i) micros *= 10;
  }
  if (dollars > (std::numeric_limits<Money>::max() - micros) / kMicrosPerDollar) return std::nullopt;
  return dollars * kMicrosPerDollar + micros;
}

}  // namespace

int runAccountsCommand(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    usage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? 2 : 0;
  }
  const std::string_view action = args[0];
  if (action != "add" && action != "rotate-key") {
    std::cerr << "tessera-exchange accounts: unknown action '" << action << "'\n";
    usage(std::cerr);
    return 2;
  }
  std::string name, file, cash;
  bool house = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string_view a = args[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= args.size()) return false;
      out = std::string(args[++i]);
      return true;
    };
    bool ok = true;
    if (a == "--file")
      ok = value(file);
    else if (a == "--cash" && action == "add")
      ok = value(cash);
    else if (a == "--house" && action == "add")
      house = true;
    else if (!a.starts_with("--") && name.empty())
      name = std::string(a);
    else
      ok = false;
    if (!ok) {
      std::cerr << "tessera-exchange accounts " << action << ": unexpected or incomplete '" << a << "'\n";
      usage(std::cerr);
      return 2;
    }
  }
  if (name.empty() || file.empty() || (action == "add" && cash.empty())) {
    std::cerr << "tessera-exchange accounts " << action << ": NAME, --file"
              << (action == "add" ? " and --cash are" : " are") << " required\n";
    usage(std::cerr);
    return 2;
  }
  std::variant<std::string, AccountsFileError> result;
  if (action == "add") {
    const auto micros = parseUsd(cash);
    if (!micros) {
      std::cerr << "tessera-exchange accounts add: --cash takes dollars, e.g. 1000 or 2.50 (got '" << cash << "')\n";
      return 2;
    }
    result = addAccount(file, name, *micros, house, KeyHashCost::production());
  } else {
    result = rotateAccountKey(file, name, KeyHashCost::production());
  }
  if (auto* e = std::get_if<AccountsFileError>(&result)) {
    std::cerr << "tessera-exchange accounts " << action << ": " << e->message << "\n";
    return 1;
  }
  // The only copy of the key: the file holds its hash alone.
  std::cout << std::get<std::string>(result) << std::endl;
  std::cerr << "tessera-exchange: the key of '" << name << "' is printed above; it is not stored and "
            << "cannot be shown again. Restart the exchange to use it.\n";
  return 0;
}

}  // namespace tessera::exchange_app
