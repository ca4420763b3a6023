#include "OutputFloor.h"
#include "ThreadUsage.h"

#include "core/engine/ContractBook.h"
#include "core/engine/Inventory.h"
#include "core/engine/Matcher.h"

#include <chrono>
#include <climits>
#include <cstdio>
#include <stdexcept>
#include <type_traits>

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tessera::bench {
namespace {

using Clock = std::chrono::steady_clock;

// What one replay writes into. Each stage of the floor gets its own, so no stage finds the
// structures already warmed (or grown) by another.
struct Sink {
  std::vector<Event> out;
  ContractBook contracts;
  Inventory inventory;
  Sink() { out.reserve(1024); }  // as engine_bench's own output vector
};

enum class Stage { Copy, ContractBook, Full };

// Replays the output of one input, as the engine would have produced it.
template <Stage S>
void replay(const Event* first, const Event* last, Sink& sink) {
  sink.out.clear();
  for (const Event* e = first; e != last; ++e) {
    sink.out.push_back(*e);
    if constexpr (S != Stage::Copy) {
      if (const auto* c = std::get_if<ContractCreated>(e)) {
        const Contract& k = c->contract;
        // TradeRecorder::flush: the transfer, then the book.
        if constexpr (S == Stage::Full) sink.inventory.transfer(k.seller, k.buyer, k.cluster, k.start, k.end, k.gpus);
        sink.contracts.add(k);
      }
    }
  }
}

// Grants and the warm-up's contracts, untimed.
void prime(const std::vector<Event>& events, const Matcher& engine, Sink& sink) {
  for (const Event& e : events) {
    if (const auto* g = std::get_if<CapacityAdded>(&e)) {
      const CapacityGrant& x = g->grant;
      sink.inventory.grant(x.account, x.cluster, x.start, x.end, x.gpus, engine.cluster(x.cluster)->totalGpus());
    } else if (const auto* c = std::get_if<ContractCreated>(&e)) {
      const Contract& k = c->contract;
      sink.inventory.transfer(k.seller, k.buyer, k.cluster, k.start, k.end, k.gpus);
      sink.contracts.add(k);
    }
  }
}

OutputFloor measureOnce(const Load& load, std::size_t warmup) {
  auto engine = makeMatchingEngine();
  Sink copy, book, full, byKind;
  std::vector<Event> out;
  auto primeAll = [&](const InputEvent& in) {
    out.clear();
    engine->apply(in, out);
    for (Sink* s : {&copy, &book, &full, &byKind}) prime(out, *engine, *s);
  };
  for (const auto& e : load.setup) primeAll(e);
  for (std::size_t i = 0; i < warmup; ++i) primeAll(load.events[i]);

  OutputFloor f;
  Clock::duration copyTime{}, bookTime{}, fullTime{};
  std::array<Clock::duration, kInputKinds> kindTime{};
  // Recorded a batch at a time: all of (b)'s output at once would take gigabytes.
  constexpr std::size_t kBatch = 4096;
  std::vector<Event> recorded;
  std::vector<std::size_t> ends;
  for (std::size_t first = warmup; first < load.events.size(); first += kBatch) {
    const std::size_t last = std::min(load.events.size(), first + kBatch);
    recorded.clear();
    ends.clear();
    for (std::size_t i = first; i < last; ++i) {
      out.clear();
      engine->apply(load.events[i], out);
      recorded.insert(recorded.end(), out.begin(), out.end());
      ends.push_back(recorded.size());
    }
    auto timeStage = [&]<Stage S>(Sink& sink, Clock::duration& total, long& faults) {
      const long f0 = ThreadUsage::now().faults;
      const auto t0 = Clock::now();
      std::size_t begin = 0;
      for (std::size_t end : ends) {
        replay<S>(recorded.data() + begin, recorded.data() + end, sink);
        begin = end;
      }
      total += Clock::now() - t0;
      faults += ThreadUsage::now().faults - f0;
    };
    timeStage.template operator()<Stage::Copy>(copy, copyTime, f.copyFaults);
    timeStage.template operator()<Stage::ContractBook>(book, bookTime, f.contractBookFaults);
    timeStage.template operator()<Stage::Full>(full, fullTime, f.floorFaults);
    std::size_t begin = 0;
    for (std::size_t k = 0; k < ends.size(); ++k) {
      const auto kind = static_cast<std::size_t>(load.kinds[first + k]);
      const auto t0 = Clock::now();
      replay<Stage::Full>(recorded.data() + begin, recorded.data() + ends[k], byKind);
      kindTime[kind] += Clock::now() - t0;
      ++f.inputsByKind[kind];
      begin = ends[k];
    }
    f.inputs += ends.size();
    f.events += recorded.size();
    for (const Event& e : recorded) f.contracts += std::holds_alternative<ContractCreated>(e);
  }
  auto perInput = [](Clock::duration d, std::size_t n) {
    return n == 0 ? 0.0 : std::chrono::duration<double, std::micro>(d).count() / static_cast<double>(n);
  };
  f.copyUs = perInput(copyTime, f.inputs);
  f.contractBookUs = perInput(bookTime, f.inputs);
  f.floorUs = perInput(fullTime, f.inputs);
  for (std::size_t k = 0; k < kInputKinds; ++k) f.floorUsByKind[k] = perInput(kindTime[k], f.inputsByKind[k]);
  return f;
}

}  // namespace

OutputFloor measureOutputFloor(const Load& load, std::size_t warmup) {
  // The engine is timed on memory the process already has (the workload generator's, freed), and
  // takes a few thousand page faults in all. The floor's four sets of structures would otherwise
  // all grow into fresh pages, and at 2-12 us a fault on this VM the faults, not the work, were
  // most of the floor (30k of them in (b)'s ContractBook stage alone). So the floor is measured
  // twice and only the second time counts, with glibc told to keep what is freed: the first grows
  // the heap. Those settings can not be undone (glibc's adaptive mmap threshold stays off), so
  // the floor is measured in a child process, and the engine runs after it see the heap as before.
  static_assert(std::is_trivially_copyable_v<OutputFloor>);
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("output floor: pipe failed");
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("output floor: fork failed");
  if (child == 0) {
    close(fds[0]);
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
    measureOnce(load, warmup);
    const OutputFloor f = measureOnce(load, warmup);
    const bool sent = write(fds[1], &f, sizeof f) == static_cast<ssize_t>(sizeof f);
    _exit(sent ? 0 : 1);
  }
  close(fds[1]);
  OutputFloor f;
  const bool received = read(fds[0], &f, sizeof f) == static_cast<ssize_t>(sizeof f);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (!received || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("output floor: the child failed");
  return f;
}

void printOutputFloor(const char* name, const OutputFloor& f) {
  std::printf("%s: output floor: %.3f us per input => at most %.0f inputs/s even with free matching\n", name, f.floorUs,
              f.floorUs > 0 ? 1e6 / f.floorUs : 0.0);
  std::printf(
      "  %zu inputs, %zu output events, %zu contracts; per input: copy events %.3f us, + ContractBook::add"
      " %.3f us, + Inventory::transfer %.3f us\n",
      f.inputs, f.events, f.contracts, f.copyUs, f.contractBookUs, f.floorUs);
  std::printf("  page faults while timed: copy %ld, + ContractBook::add %ld, + Inventory::transfer %ld\n", f.copyFaults,
              f.contractBookFaults, f.floorFaults);
  std::printf("  floor by kind (timed one input at a time):");
  for (std::size_t k = 0; k < kInputKinds; ++k)
    if (f.inputsByKind[k] > 0) std::printf("  %s %.3f us", toString(static_cast<InputKind>(k)), f.floorUsByKind[k]);
  std::printf("\n");
}

}  // namespace tessera::bench
