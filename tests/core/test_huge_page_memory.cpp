// HugePageMemory on its own: mappings are aligned to a huge page and zeroed; EngineMemory's blocks
// are aligned, disjoint and keep what is written to them, come from the prefaulted part while it
// lasts and from ordinary mappings after it, a block given back is handed out again for its size
// class only, and containers built on it work as on the heap.
#include "core/engine/HugePageMemory.h"

#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

using namespace tessera;

namespace {
bool alignedTo(const void* p, std::size_t a) { return reinterpret_cast<std::uintptr_t>(p) % a == 0; }

// What the kernel says of the mapping that holds `p` (/proc/self/smaps): its VmFlags and how
// many kB of it are anonymous huge pages.
struct MappingReport {
  bool found = false;
  std::string flags;
  long anonHugeKb = 0;
};
MappingReport reportOf(const void* p) {
  MappingReport r;
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
      inside = at >= lo && at < hi;
      r.found |= inside;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("AnonHugePages:", 0) == 0) r.anonHugeKb = std::atol(line.c_str() + 14);
    if (line.rfind("VmFlags:", 0) == 0) r.flags = line.substr(8) + " ";
  }
  return r;
}
// The selected value of a /sys/kernel/mm/transparent_hugepage setting ("[madvise]" -> "madvise").
std::string thpSetting(const char* name) {
  std::ifstream f(std::string("/sys/kernel/mm/transparent_hugepage/") + name);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto open = all.find('['), close = all.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : all.substr(open + 1, close - open - 1);
}
}  // namespace

class TestHugePageMemory : public QObject {
  Q_OBJECT
 private slots:
  void mappingsAreAlignedZeroedAndWritable() {
    const std::size_t bytes = kHugePageBytes + 12345;  // not a multiple: rounded up
    auto* p = static_cast<unsigned char*>(mapPages(bytes, true));
    QVERIFY(alignedTo(p, kHugePageBytes));
    QVERIFY(std::all_of(p, p + bytes, [](unsigned char c) { return c == 0; }));
    std::memset(p, 0xab, bytes);
    QCOMPARE(p[bytes - 1], static_cast<unsigned char>(0xab));
    unmapPages(p, bytes);
  }

  // The point of the huge mappings: the kernel is asked for huge pages there (VmFlags "hg"),
  // and, where transparent huge pages are on for advised memory and faults may compact, it gives
  // them. Fails if mapPages stops advising (mutation: drop its madvise call).
  void hugeMappingsAreAdvisedAndGetHugePages() {
    const std::string enabled = thpSetting("enabled");
    if (enabled.empty() || enabled == "never") QSKIP("transparent huge pages are off on this machine");
    const std::size_t bytes = 2 * kHugePageBytes;
    auto* huge = static_cast<unsigned char*>(mapPages(bytes, true));
    auto* plain = static_cast<unsigned char*>(mapPages(bytes, false));
    std::memset(huge, 1, bytes);
    std::memset(plain, 1, bytes);
    const MappingReport h = reportOf(huge), o = reportOf(plain);
    QVERIFY(h.found && o.found);
    QVERIFY2(h.flags.find(" hg ") != std::string::npos, ("VmFlags:" + h.flags).c_str());
    QVERIFY2(o.flags.find(" hg ") == std::string::npos, ("VmFlags:" + o.flags).c_str());
    const std::string defrag = thpSetting("defrag");
    if (defrag == "always" || defrag == "madvise" || defrag == "defer+madvise")
      QVERIFY2(h.anonHugeKb > 0, "advised memory got no huge page although faults may compact");
    unmapPages(huge, bytes);
    unmapPages(plain, bytes);
  }

  void prefaultedMemoryIsHandedOutFirstThenOrdinaryMappings() {
    EngineMemory memory(3 * kHugePageBytes - 1);  // rounded up to three huge pages
    QCOMPARE(memory.prefaultedBytes(), 3 * kHugePageBytes);
    QCOMPARE(memory.carvedBytes(), std::size_t{0});
    // Two huge pages of 1 MB blocks, then a run of two huge pages that no longer fits.
    std::vector<unsigned char*> blocks;
    for (int i = 0; i < 4; ++i) blocks.push_back(static_cast<unsigned char*>(memory.allocate(std::size_t{1} << 20, 8)));
    auto* run = static_cast<unsigned char*>(memory.allocate(2 * kHugePageBytes, 64));
    QCOMPARE(memory.carvedBytes(), 4 * kHugePageBytes);
    const unsigned char* first = blocks.front();
    QVERIFY(alignedTo(first, kHugePageBytes));
    for (const unsigned char* b : blocks)
      QVERIFY(b >= first && b + (std::size_t{1} << 20) <= first + 3 * kHugePageBytes);
    QVERIFY(alignedTo(run, kHugePageBytes));
    QVERIFY(run + 2 * kHugePageBytes <= first || run >= first + 3 * kHugePageBytes);
    // The third prefaulted huge page is still there for a request that fits it.
    auto* third = static_cast<unsigned char*>(memory.allocate(kHugePageBytes, 64));
    QCOMPARE(third, first + 2 * kHugePageBytes);
    for (unsigned char* b : blocks) std::memset(b, 7, std::size_t{1} << 20);
    std::memset(run, 9, 2 * kHugePageBytes);
    std::memset(third, 5, kHugePageBytes);
    QCOMPARE(blocks.back()[(std::size_t{1} << 20) - 1], static_cast<unsigned char>(7));
    QCOMPARE(run[0], static_cast<unsigned char>(9));
  }

  void largeAlignmentsGetWholeHugePages() {
    EngineMemory memory;
    void* a = memory.allocate(100, 4096);
    QVERIFY(alignedTo(a, 4096));
    QCOMPARE(memory.carvedBytes(), kHugePageBytes);
    memory.deallocate(a, 100, 4096);
    QCOMPARE(memory.allocate(kHugePageBytes, 64), a);
  }

  void sizeClasses() {
    QCOMPARE(EngineMemory::blockSize(1), std::size_t{64});
    QCOMPARE(EngineMemory::blockSize(64), std::size_t{64});
    QCOMPARE(EngineMemory::blockSize(65), std::size_t{128});
    QCOMPARE(EngineMemory::blockSize(2880), std::size_t{2880});  // 720 hours of counts, exactly
    QCOMPARE(EngineMemory::blockSize(4096), std::size_t{4096});
    QCOMPARE(EngineMemory::blockSize(4097), std::size_t{8192});
    QCOMPARE(EngineMemory::blockSize(8193), std::size_t{16384});
    QCOMPARE(EngineMemory::blockSize((std::size_t{1} << 20) - 1), std::size_t{1} << 20);
  }

  void blocksAreAlignedDisjointAndKeepTheirContents() {
    EngineMemory memory;
    std::vector<std::pair<unsigned char*, std::size_t>> blocks;
    // Sizes across the classes, with alignments up to a line, enough for several huge pages.
    for (int i = 0; i < 3000; ++i) {
      const std::size_t bytes = 1 + static_cast<std::size_t>(i * 7919 % 9000);
      const std::size_t align = std::size_t{1} << (i % 7);
      auto* p = static_cast<unsigned char*>(memory.allocate(bytes, align));
      QVERIFY(alignedTo(p, align));
      std::memset(p, i & 0xff, bytes);
      blocks.emplace_back(p, bytes);
    }
    auto sorted = blocks;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 1; i < sorted.size(); ++i)
      QVERIFY(sorted[i - 1].first + sorted[i - 1].second <= sorted[i].first);
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      const auto [p, bytes] = blocks[i];
      QVERIFY(std::all_of(p, p + bytes, [i](unsigned char c) { return c == (i & 0xff); }));
    }
    for (const auto& [p, bytes] : blocks) memory.deallocate(p, bytes, 1);
  }

  void givenBackBlocksAreReusedBySizeClass() {
    EngineMemory memory;
    void* a = memory.allocate(700, 4);
    void* b = memory.allocate(5000, 8);
    memory.deallocate(a, 700, 4);
    // The same class (641 to 704 bytes) gets the block back; another class does not.
    QCOMPARE(memory.allocate(650, 4), a);
    void* c = memory.allocate(700, 4);
    QVERIFY(c != a && c != b);
    memory.deallocate(b, 5000, 8);
    QCOMPARE(memory.allocate(8192, 8), b);
  }

  void largeRequestsGetRunsOfHugePages() {
    EngineMemory memory;
    const std::size_t bytes = 3 * kHugePageBytes;
    auto* p = static_cast<unsigned char*>(memory.allocate(bytes, 64));
    QVERIFY(alignedTo(p, kHugePageBytes));
    std::memset(p, 1, bytes);
    memory.deallocate(p, bytes, 64);
  }

  void containersWorkOnIt() {
    EngineMemory memory;
    std::pmr::vector<std::uint32_t> perHour(&memory);
    std::vector<std::pmr::vector<std::int64_t>> many;
    for (int i = 0; i < 500; ++i) {
      perHour.push_back(static_cast<std::uint32_t>(i));
      auto& v = many.emplace_back(&memory);
      v.assign(static_cast<std::size_t>(i % 97 + 1), i);
    }
    // A FIFO larger than a huge page grows through the classes to a mapping of its own, and back.
    std::pmr::vector<std::uint64_t> big(&memory);
    for (std::uint64_t i = 0; i < 400'000; ++i) big.push_back(i);
    QCOMPARE(big[399'999], std::uint64_t{399'999});
    big.clear();
    big.shrink_to_fit();
    for (int i = 0; i < 500; ++i) {
      QCOMPARE(perHour[static_cast<std::size_t>(i)], static_cast<std::uint32_t>(i));
      const auto& v = many[static_cast<std::size_t>(i)];
      QCOMPARE(v.size(), static_cast<std::size_t>(i % 97 + 1));
      QVERIFY(std::all_of(v.begin(), v.end(), [i](std::int64_t x) { return x == i; }));
    }
  }
};

QTEST_APPLESS_MAIN(TestHugePageMemory)
#include "test_huge_page_memory.moc"
