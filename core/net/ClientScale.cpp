#include "core/net/ClientScale.h"

#include "core/domain/HourText.h"
#include "core/net/ClientOrderId.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/CountText.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <csignal>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <thread>

namespace tessera::net {
namespace {

std::atomic<bool> interrupted{false};
void onSignal(int) { interrupted = true; }

// What the io thread hands the round: logon, the contracts and the answers to its orders.
struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  bool loggedOn = false;
  bool authFailed = false;
  std::string failure;
  bool bookSeen = false;
  bool positionsAsked = false;
  bool positionsIn = false;
  std::vector<Contract> contracts;
  std::map<ContractId, ContractStatus> status;
  std::set<std::string> pending;      // this round's orders not finished yet
  std::vector<std::string> outcomes;  // lines (or JSON objects) for them
  std::vector<nlohmann::json> outcomeJson;
};

std::string usd4(Price p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.4f", static_cast<double>(p) / kMicrosPerDollar);
  return buf;
}

}  // namespace

std::string scaleClOrdId(const std::string& account, const ProcurementOrder& order,
                         const std::vector<HeldContract>& held, const BookMirror& book, Hour now) {
  // What the decision was made from: the exchange hour, the account's contracts (with what
  // they lost) and the resting orders the order would meet in its hours. A run stopped between
  // sending an order and its answer, started again before the exchange has it, decides from the
  // same and names the same order: the exchange trades it once and refuses the copy
  // (duplicate_cl_ord_id). A later round that sees anything else names a new one.
  std::string context = "scale\n" + std::to_string(now) + "\n";
  for (const HeldContract& c : held) {
    context += std::to_string(c.id) + ' ' + std::to_string(c.gpus) + ' ' + std::to_string(c.start) + ' ' +
               std::to_string(c.end) + (c.bought ? " b " : " s ") + std::to_string(c.replaces);
    for (const ContractSettlement::LostRun& l : c.lost)
      context += ' ' + std::to_string(l.start) + '-' + std::to_string(l.end) + 'x' + std::to_string(l.gpus);
    context += '\n';
  }
  const Side resting = order.side == Side::Buy ? Side::Sell : Side::Buy;
  for (Hour h = order.start; h < order.end; ++h) {
    if (const auto* levels = book.levels(CellKey{order.cluster, h, resting}))
      for (const BookLevel& l : *levels)
        context += std::to_string(h) + ':' + std::to_string(l.price) + 'x' + std::to_string(l.gpus) + ' ';
  }
  return "scale-" + clOrdIdFor(account, order.request(), context).substr(4, 24);
}

std::vector<HeldContract> heldContracts(const std::vector<Contract>& contracts,
                                        const std::map<ContractId, ContractStatus>& status) {
  std::vector<HeldContract> held;
  for (const Contract& c : contracts) {
    const auto s = status.find(c.id);
    held.push_back({c.id, c.cluster, c.gpus, c.start, c.end, c.buyer == kOwnAccount,
                    s == status.end() ? 0 : s->second.replaces,
                    s == status.end() ? std::vector<ContractSettlement::LostRun>{} : s->second.lost});
    // Hours its provider reclaimed are not held either: they left the buyer's holding.
    if (s != status.end() && c.buyer == kOwnAccount)
      held.back().lost.insert(held.back().lost.end(), s->second.reclaimed.begin(), s->second.reclaimed.end());
  }
  return held;
}

int runScale(const ClientOptions& optionsIn, const ScaleSettings& s, std::ostream& out, std::ostream& err) {
  ClientOptions options = optionsIn;
  options.marketData = true;
  Shared sh;
  ClientCallbacks cb;
  cb.onConnection = [&](ConnectionState state, const std::string& detail) {
    std::lock_guard lock(sh.mu);
    if (state == ConnectionState::LoggedOn) sh.loggedOn = true;
    if (state == ConnectionState::AuthFailed) {
      sh.authFailed = true;
      sh.failure = detail;
    }
    sh.cv.notify_all();
  };
  cb.onBook = [&](const std::vector<BookCell>&, bool snapshot) {
    if (!snapshot) return;
    std::lock_guard lock(sh.mu);
    sh.bookSeen = true;
    sh.cv.notify_all();
  };
  cb.onPositions = [&](const std::vector<Contract>& list) {
    std::lock_guard lock(sh.mu);
    if (sh.positionsAsked) sh.contracts = list;
  };
  cb.onContractStatus = [&](const std::vector<ContractStatus>& list) {
    std::lock_guard lock(sh.mu);
    if (!sh.positionsAsked) return;
    sh.status.clear();
    for (const ContractStatus& c : list) sh.status[c.contract] = c;
    sh.positionsIn = true;
    sh.cv.notify_all();
  };
  cb.onOrder = [&](const OrderUpdate& u) {
    std::lock_guard lock(sh.mu);
    if (!sh.pending.count(u.clOrdId)) return;
    nlohmann::json j{{"cl_ord_id", u.clOrdId}, {"order_id", u.orderId}};
    std::string line;
    bool done = false;
    switch (u.state) {
      case OrderState::Filled:
      case OrderState::PartiallyFilled:
        line = "  filled " + withThousands(u.gpus) + " GPUs on cluster " + std::to_string(u.cluster) + ", " +
               isoHour(u.start) + " to " + isoHour(u.end) + " UTC at " + usd4(u.price) + "/GPU-h";
        j.update({{"state", "filled"},
                  {"cluster", u.cluster},
                  {"gpus", u.gpus},
                  {"start", u.start},
                  {"end", u.end},
                  {"price_usd", static_cast<double>(u.price) / kMicrosPerDollar}});
        done = u.state == OrderState::Filled && u.leavesGpuHours == 0;
        break;
      case OrderState::Cancelled:
        line = "  the rest of order " + std::to_string(u.orderId) + " found nothing at its price (" + u.code + ")";
        j.update({{"state", "cancelled"}, {"code", u.code}});
        done = true;
        break;
      case OrderState::Rejected:
        line = u.code == "duplicate_cl_ord_id"
                   ? "  already sent by an earlier run from the same holding and book (" + u.clOrdId +
                         "): not sent twice; the next round counts what it bought"
                   : "  order refused: " + u.code + " (" + u.reason + ")";
        j.update({{"state", "rejected"}, {"code", u.code}, {"reason", u.reason}});
        done = true;
        break;
      default: return;
    }
    sh.outcomes.push_back(line);
    sh.outcomeJson.push_back(j);
    if (done) sh.pending.erase(u.clOrdId);
    sh.cv.notify_all();
  };
  cb.onError = [&](const RequestError& e) {
    std::lock_guard lock(sh.mu);
    sh.failure = e.code + ": " + e.reason;
    sh.cv.notify_all();
  };

  ExchangeClient client(options, cb);
  client.start();
  {
    std::unique_lock lock(sh.mu);
    if (!sh.cv.wait_for(lock, s.timeout, [&] { return (sh.loggedOn && sh.bookSeen) || sh.authFailed; })) {
      err << "tessera-cli: could not log on to " << options.host << ":" << options.port << " within "
          << s.timeout.count() << " s\n";
      lock.unlock();
      client.stop();
      return 1;
    }
    if (sh.authFailed) {
      err << "tessera-cli: logon refused: " << sh.failure << "\n";
      lock.unlock();
      client.stop();
      return 1;
    }
  }
  interrupted = false;
  auto oldInt = std::signal(SIGINT, onSignal);
  auto oldTerm = std::signal(SIGTERM, onSignal);
  const int rounds = s.rounds > 0 ? s.rounds : (s.every.count() > 0 ? 0 : 1);
  int failedRounds = 0;
  for (int round = 1; !interrupted && (rounds == 0 || round <= rounds); ++round) {
    // The holding as the exchange knows it.
    std::vector<HeldContract> held;
    bool answered;
    {
      std::unique_lock lock(sh.mu);
      sh.positionsAsked = true;
      sh.positionsIn = false;
      lock.unlock();
      client.requestPositions();
      lock.lock();
      answered = sh.cv.wait_for(lock, s.timeout, [&] { return sh.positionsIn; });
      held = heldContracts(sh.contracts, sh.status);
    }
    const Hour now = client.now();
    if (!answered) {
      ++failedRounds;
      err << "tessera-cli: round " << round << ": the exchange did not list the account's contracts within "
          << s.timeout.count() << " s; nothing ordered this round\n";
    } else {
      const BookMirror book = client.book();
      const std::vector<Cluster> clusters = client.clusters();
      const ProcurementRound plan =
          planProcurement(s.target, now, clusters, held, [&book](ClusterId c, Hour h, Side side) {
            const auto* l = book.levels(CellKey{c, h, side});
            return l ? *l : std::vector<BookLevel>{};
          });
      std::vector<std::string> ids;
      for (std::size_t i = 0; i < plan.orders.size(); ++i)
        ids.push_back(scaleClOrdId(options.account, plan.orders[i], held, book, now));
      {
        std::lock_guard lock(sh.mu);
        sh.pending = {ids.begin(), ids.end()};
        sh.outcomes.clear();
        sh.outcomeJson.clear();
      }
      if (!s.json) {
        out << "scale: round " << round << " at " << isoHour(now) << " UTC\n";
        for (const std::string& line : plan.describe(clusters)) out << line << "\n";
        out << std::flush;
      }
      for (std::size_t i = 0; i < plan.orders.size(); ++i) client.placeOrder(plan.orders[i].request(), ids[i]);
      bool finished;
      {
        std::unique_lock lock(sh.mu);
        finished = sh.cv.wait_for(lock, s.timeout, [&] { return sh.pending.empty(); });
        if (s.json) {
          nlohmann::json orders = nlohmann::json::array();
          for (std::size_t i = 0; i < plan.orders.size(); ++i) {
            const ProcurementOrder& o = plan.orders[i];
            orders.push_back({{"cl_ord_id", ids[i]},
                              {"side", o.side == Side::Buy ? "buy" : "sell"},
                              {"cluster", o.cluster},
                              {"gpus", o.gpus},
                              {"start", o.start},
                              {"end", o.end},
                              {"limit_usd", static_cast<double>(o.limit) / kMicrosPerDollar},
                              {"sell_back", o.sellBack}});
          }
          nlohmann::json steps = nlohmann::json::array();
          for (const HeldStep& st : heldSteps(plan.held, plan.from))
            steps.push_back({{"start", st.start}, {"end", st.end}, {"gpus", st.gpus}});
          out << nlohmann::json{{"round", round},
                                {"now", now},
                                {"from", plan.from},
                                {"to", plan.to},
                                {"target_gpus", plan.target},
                                {"held", steps},
                                {"missing_gpu_hours", plan.missingGpuHours},
                                {"over_gpu_hours", plan.overGpuHours},
                                {"orders", orders},
                                {"outcomes", sh.outcomeJson}}
                     .dump()
              << "\n";
        } else {
          for (const std::string& line : sh.outcomes) out << line << "\n";
        }
      }
      if (!finished) {
        ++failedRounds;
        err << "tessera-cli: round " << round << ": not every order was answered within " << s.timeout.count()
            << " s; the next round counts what filled\n";
      }
      out << std::flush;
    }
    if (rounds != 0 && round >= rounds) break;
    const auto until = std::chrono::steady_clock::now() + s.every;
    while (!interrupted && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::signal(SIGINT, oldInt);
  std::signal(SIGTERM, oldTerm);
  client.stop();
  return rounds == 1 && failedRounds > 0 ? 1 : 0;
}

}  // namespace tessera::net
