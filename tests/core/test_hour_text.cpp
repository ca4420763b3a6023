// Times as people write them resolve to the documented UTC hours, against a fixed clock
// (Monday 2026-12-07 07:00Z), and everything else is refused with a reason. Fails if "tomorrow"
// is taken as today (HourText.cpp: {"tomorrow", 0}) or a time of day already past today is not
// moved to tomorrow.
#include "core/domain/HourText.h"

#include <QtTest>

using namespace tessera;

namespace {

constexpr Hour kNow = 499063;       // 2026-12-07T07:00Z
constexpr Hour kMidnight = 499056;  // 2026-12-07T00:00Z

Hour at(std::string_view text, Hour now = kNow) {
  auto r = parseHourText(text, now);
  if (auto* e = std::get_if<HourTextError>(&r)) qFatal("'%s': %s", std::string(text).c_str(), e->message.c_str());
  return std::get<Hour>(r);
}

bool refused(std::string_view text) { return std::holds_alternative<HourTextError>(parseHourText(text, kNow)); }

Hour span(std::string_view text) {
  auto r = parseHoursText(text);
  if (auto* e = std::get_if<HourTextError>(&r)) qFatal("'%s': %s", std::string(text).c_str(), e->message.c_str());
  return std::get<Hour>(r);
}

}  // namespace

class TestHourText : public QObject {
  Q_OBJECT
 private slots:
  void phrases() {
    QCOMPARE(at("now"), kNow);
    QCOMPARE(at("  NOW "), kNow);
    QCOMPARE(at("today"), kMidnight);
    QCOMPARE(at("tomorrow"), kMidnight + 24);
    QCOMPARE(at("tomorrow 9am"), kMidnight + 24 + 9);
    QCOMPARE(at("Tomorrow 9 AM"), kMidnight + 24 + 9);
    QCOMPARE(at("tomorrow 9pm"), kMidnight + 24 + 21);
    QCOMPARE(at("tomorrow 12am"), kMidnight + 24);
    QCOMPARE(at("tomorrow 12pm"), kMidnight + 24 + 12);
    QCOMPARE(at("tomorrow noon"), kMidnight + 24 + 12);
    QCOMPARE(at("tomorrow 09:00"), kMidnight + 24 + 9);
    QCOMPARE(at("today 14:00"), kMidnight + 14);
    QCOMPARE(at("9am"), kMidnight + 9);       // still to come today
    QCOMPARE(at("7am"), kNow);                // this very hour
    QCOMPARE(at("6am"), kMidnight + 24 + 6);  // gone today: tomorrow's
    QCOMPARE(at("+3d"), kNow + 72);
    QCOMPARE(at("+36h"), kNow + 36);
    QCOMPARE(at("+2w"), kNow + 336);
    QCOMPARE(at("in 5 hours"), kNow + 5);
    QCOMPARE(at("in 3 days"), kNow + 72);
  }
  void iso8601() {
    QCOMPARE(at("2026-12-08T09:00Z"), Hour(499089));
    QCOMPARE(at("2026-12-08T09Z"), Hour(499089));
    QCOMPARE(at("2026-12-08T09:00:00Z"), Hour(499089));
    QCOMPARE(at("2026-12-08 09:00"), Hour(499089));
    QCOMPARE(at("2026-12-08"), Hour(499080));
    QCOMPARE(at("2026-12-08T10:00+01:00"), Hour(499089));
    QCOMPARE(at("2026-12-08T04:00-0500"), Hour(499089));
    QCOMPARE(at("2026-12-08T00:00+01"), Hour(499079));  // 23:00Z the day before
    QCOMPARE(at("2024-02-29T23:00Z"), Hour(474791));
    QCOMPARE(at("499089"), Hour(499089));  // the protocol's hour numbers still work
  }
  void refusedWithAReason() {
    for (const char* bad : {"", "tomorow", "tomorrow 25:00", "tomorrow 9:30", "2026-12-08T09:30Z", "2026-02-30",
                            "2026-13-01", "2026-12-08T09:00:01Z", "2026-12-08X09", "2026-12-08T09:00+01:30", "+3x",
                            "+0h", "in three days", "13pm", "0pm", "next tuesday"}) {
      QVERIFY2(refused(bad), bad);
    }
    auto r = parseHourText("tomorrow 9:30", kNow);
    QVERIFY(std::get<HourTextError>(r).message.find("not on the hour") != std::string::npos);
  }
  void durations() {
    QCOMPARE(span("72h"), Hour(72));
    QCOMPARE(span("for 72h"), Hour(72));
    QCOMPARE(span("for 3 days"), Hour(72));
    QCOMPARE(span("3d"), Hour(72));
    QCOMPARE(span("1 week"), Hour(168));
    QCOMPARE(span("2w"), Hour(336));
    QCOMPARE(span("1 hour"), Hour(1));
    QCOMPARE(span("12"), Hour(12));
    for (const char* bad : {"0h", "-3d", "3 fortnights", "three days", "", "for", "99999999999999d"})
      QVERIFY2(std::holds_alternative<HourTextError>(parseHoursText(bad)), bad);
  }
  void isoHourIsTheInverse() {
    QCOMPARE(isoHour(499089), std::string("2026-12-08T09:00Z"));
    QCOMPARE(isoHour(0), std::string("1970-01-01T00:00Z"));
    QCOMPARE(isoHour(-1), std::string("1969-12-31T23:00Z"));
    for (Hour h = kNow - 24 * 400; h < kNow + 24 * 400; h += 7) QCOMPARE(at(isoHour(h)), h);
  }
};

QTEST_GUILESS_MAIN(TestHourText)
#include "test_hour_text.moc"
