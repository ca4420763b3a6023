#pragma once
// The terminal's command line, and the market backend it asks for.
#include "ui/session/MarketBackend.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>
#include <variant>

namespace tessera::ui {

struct TerminalOptions {
  QString account = QStringLiteral("trader");
  std::uint64_t seed = 7;
  double simulatedHoursPerMinute = 6;  // pace of the embedded simulated market
  double activity = 1.0;
  QString connect;          // host:port of a remote exchange; empty: embedded
  QString ca;               // with connect: CA (PEM) to verify the exchange's certificate; implies TLS
  bool tls = false;         // with connect: TLS, verified against the system's roots (or ca)
  QString key;              // API key of the account on the remote exchange
  QString screenshot;       // save the main window here and quit
  QString screenshotDocks;  // and each dock into this folder
  double screenshotAfterSeconds = 4;
  bool screenshotTour = false;  // trade a little first, so the pictures show orders
  bool resetLayout = false;
  bool inProcess = false;  // the engine in this process, without the exchange server
  QString record;          // embedded exchange: record the market history to this file
  QString paperAccount;    // embedded exchange: its journal; empty: PaperAccount::defaultJournalPath()
  bool fresh = false;      // embedded exchange: start a new paper account without asking
  // --market-mode: the embedded exchange trades every cluster in calls (true) or continuously;
  // none: as remembered (embeddedCallMode).
  std::optional<bool> callMode;
};

// The embedded exchange's market mode, kept in QSettings (Settings > "Embedded exchange trades
// in calls", or --market-mode, which the terminal remembers): whether every cluster trades in
// calls. Continuous unless chosen.
bool embeddedCallMode();
void setEmbeddedCallMode(bool calls);

// The default market: the embedded exchange, whose journal is the paper account.
bool usesPaperAccount(const TerminalOptions& options);

// Parses the arguments (argv[0] first); returns the options or a message for the user.
std::variant<TerminalOptions, QString> parseTerminalOptions(const QStringList& arguments);

// The backend the options ask for, or why it cannot be made. `journalPath`: the embedded
// exchange's journal (see chooseJournal); empty: in memory. The embedded exchange trades in the
// mode embeddedCallMode() says.
std::variant<std::unique_ptr<MarketBackend>, QString> makeBackend(const TerminalOptions& options,
                                                                  const QString& journalPath = {});

// Where the ticket's on-fill commands keep their state (ui/session OnFillWatcher), for the
// market the options ask for: next to a paper account's journal (`journalPath`: the file goes
// with the account when it is set aside or started over), or in the user's data folder per
// remote exchange and account. Empty: none (the in-process engine, a paper account in memory).
QString onFillStatePath(const TerminalOptions& options, const QString& journalPath);
// HOST:PORT of the exchange `backend` (made by makeBackend) trades on, for TESSERA_EXCHANGE:
// the embedded one's loopback port is known once it runs. Callable while the backend lives.
std::function<QString()> exchangeAddress(const TerminalOptions& options, const MarketBackend& backend);

}  // namespace tessera::ui
