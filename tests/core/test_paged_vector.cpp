// PagedVector on its own: elements stay where they were put while the sequence grows, and
// pop_back followed by push_back reuses the slot and the page, across page boundaries too (the
// engine pops the order it just tried when an all-or-none check fails, then pushes the next).
#include "core/engine/PagedVector.h"

#include <QtTest>

#include <cstdint>
#include <vector>

using namespace tessera;

namespace {
// Counts live instances, so a test can tell every constructed element was destroyed once.
// Neither copyable nor movable: elements are built in place and never move.
struct Tracked {
  static inline int live = 0;
  std::int64_t value;
  explicit Tracked(std::int64_t v) : value(v) { ++live; }
  Tracked(Tracked&&) = delete;
  ~Tracked() { --live; }
};

// Pages of four elements, so boundaries come every few pushes.
using Small = PagedVector<std::int64_t, 2>;
}  // namespace

class TestPagedVector : public QObject {
  Q_OBJECT
 private slots:
  void elementsStayPutAsItGrows() {
    Small v;
    std::vector<const std::int64_t*> where;
    for (std::int64_t i = 0; i < 37; ++i) where.push_back(&v.emplace_back(i * 10));
    QCOMPARE(v.size(), std::size_t{37});
    for (std::size_t i = 0; i < where.size(); ++i) {
      QCOMPARE(&v[i], where[i]);
      QCOMPARE(v[i], static_cast<std::int64_t>(i) * 10);
    }
    QCOMPARE(v.back(), std::int64_t{360});
  }

  void popThenPushReusesTheSlotAcrossPageBoundaries() {
    Small v;
    for (std::int64_t i = 0; i < 9; ++i) v.push_back(std::int64_t{i});
    // Pop back over two page boundaries (9 -> 3), then refill past them again.
    std::vector<const std::int64_t*> where;
    for (std::size_t i = 0; i < 9; ++i) where.push_back(&v[i]);
    for (int i = 0; i < 6; ++i) v.pop_back();
    QCOMPARE(v.size(), std::size_t{3});
    QCOMPARE(v.back(), std::int64_t{2});
    for (std::int64_t i = 3; i < 12; ++i) v.push_back(std::int64_t{100 + i});
    QCOMPARE(v.size(), std::size_t{12});
    for (std::size_t i = 0; i < 9; ++i) QCOMPARE(&v[i], where[i]);  // the same pages, reused
    for (std::size_t i = 0; i < 3; ++i) QCOMPARE(v[i], static_cast<std::int64_t>(i));
    for (std::size_t i = 3; i < 12; ++i) QCOMPARE(v[i], static_cast<std::int64_t>(100 + i));
  }

  void popAtAPageBoundaryThenPush() {
    // Exactly a page, pop one, push one: the slot is the last of the first page, not a new page.
    Small v;
    for (std::int64_t i = 0; i < 4; ++i) v.push_back(std::int64_t{i});
    const std::int64_t* last = &v[3];
    v.pop_back();
    QCOMPARE(&v.emplace_back(std::int64_t{7}), last);
    // A page and one: pop to the boundary, push, and the next page's first slot comes back.
    const std::int64_t* fifth = &v.emplace_back(std::int64_t{8});
    v.pop_back();
    QCOMPARE(&v.emplace_back(std::int64_t{9}), fifth);
    QCOMPARE(v.size(), std::size_t{5});
    QCOMPARE(v[3], std::int64_t{7});
    QCOMPARE(v[4], std::int64_t{9});
    // Down to empty and up again.
    while (v.size() > 0) v.pop_back();
    QCOMPARE(&v.emplace_back(std::int64_t{1}), &v[0]);
    QCOMPARE(v[0], std::int64_t{1});
  }

  void everyElementIsDestroyedOnce() {
    Tracked::live = 0;
    {
      PagedVector<Tracked, 2> v;
      for (int i = 0; i < 10; ++i) v.emplace_back(i);
      v.pop_back();
      v.pop_back();
      QCOMPARE(Tracked::live, 8);
      v.emplace_back(99);
      QCOMPARE(Tracked::live, 9);
      QCOMPARE(v[8].value, std::int64_t{99});
    }
    QCOMPARE(Tracked::live, 0);
  }
};

QTEST_APPLESS_MAIN(TestPagedVector)
#include "test_paged_vector.moc"
