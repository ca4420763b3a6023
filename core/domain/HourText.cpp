#include "core/domain/HourText.h"

#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <optional>

namespace tessera {
namespace {

constexpr Hour kMaxSpanHours = 10 * 366 * kHoursPerDay;  // ten years: far past anything tradable

std::string normalised(std::string_view text) {
  std::string s;
  for (char c : text) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (std::isspace(static_cast<unsigned char>(l))) {
      if (!s.empty() && s.back() != ' ') s += ' ';
    } else {
      s += l;
    }
  }
  if (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// A whole number made of all of `s`.
std::optional<std::int64_t> number(std::string_view s) {
  std::int64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

Hour floorDiv(Hour a, Hour b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

HourTextError notOnTheHour(std::string_view text) {
  return {"'" + std::string(text) + "' is not on the hour: the market trades whole UTC hours"};
}

// "9am", "9 am", "12pm", "9:00pm", "09:00", "21:00", "noon", "midnight": the hour of the day.
std::variant<Hour, HourTextError> timeOfDay(std::string_view s) {
  if (s == "noon") return Hour(12);
  if (s == "midnight") return Hour(0);
  std::string_view digits = s;
  std::optional<bool> pm;
  if (s.size() > 2 && (s.substr(s.size() - 2) == "am" || s.substr(s.size() - 2) == "pm")) {
    pm = s.substr(s.size() - 2) == "pm";
    digits = s.substr(0, s.size() - 2);
    if (!digits.empty() && digits.back() == ' ') digits.remove_suffix(1);
  }
  std::int64_t minutes = 0;
  if (const auto colon = digits.find(':'); colon != std::string_view::npos) {
    const auto m = number(digits.substr(colon + 1));
    if (!m || digits.size() - colon - 1 != 2 || *m < 0 || *m > 59)
      return HourTextError{"'" + std::string(s) + "' is not a time of day"};
    minutes = *m;
    digits = digits.substr(0, colon);
  } else if (!pm) {
    return HourTextError{"'" + std::string(s) + "' is not a time of day (write 9am, 21:00, noon)"};
  }
  const auto h = number(digits);
  if (!h || *h < 0 || *h > (pm ? 12 : 23) || (pm && *h == 0))
    return HourTextError{"'" + std::string(s) + "' is not a time of day"};
  if (minutes != 0) return notOnTheHour(s);
  Hour hour = *h;
  if (pm) hour = (hour % 12) + (*pm ? 12 : 0);
  return hour;
}

// "2026-12-08", then nothing, or "T"/" " and "09", "09:00", "09:00:00", then "Z", "+01:00",
// "-0500", "+01" or nothing (UTC).
std::variant<Hour, HourTextError> iso8601(std::string_view original, std::string_view s) {
  auto bad = [&] {
    return HourTextError{"'" + std::string(original) +
                         "' is not a time (ISO 8601 such as 2026-12-08T09:00Z, or now, tomorrow 9am, +3d)"};
  };
  const auto y = number(s.substr(0, 4)), mo = number(s.substr(5, 2)), d = number(s.substr(8, 2));
  if (!y || !mo || !d || s[4] != '-' || s[7] != '-') return bad();
  using namespace std::chrono;
  const year_month_day date{year(static_cast<int>(*y)), month(static_cast<unsigned>(*mo)),
                            day(static_cast<unsigned>(*d))};
  if (!date.ok()) return HourTextError{"'" + std::string(original) + "' is not a calendar date"};
  const Hour midnight = sys_days(date).time_since_epoch().count() * kHoursPerDay;
  std::string_view rest = s.substr(10);
  if (rest.empty()) return midnight;
  if (rest[0] != 't' && rest[0] != ' ') return bad();
  rest.remove_prefix(1);
  // The clock time: hh, hh:mm or hh:mm:ss.
  std::size_t n = 0;
  while (n < rest.size() && (std::isdigit(static_cast<unsigned char>(rest[n])) || rest[n] == ':')) ++n;
  const std::string_view clock = rest.substr(0, n);
  std::string_view zone = rest.substr(n);
  std::int64_t fields[3] = {0, 0, 0};
  int count = 0;
  for (std::size_t at = 0;; ++count) {
    const auto colon = clock.find(':', at);
    const std::string_view part =
        clock.substr(at, colon == std::string_view::npos ? std::string_view::npos : colon - at);
    const auto v = number(part);
    if (count == 3 || !v || part.size() != 2) return bad();
    fields[count] = *v;
    if (colon == std::string_view::npos) break;
    at = colon + 1;
  }
  if (fields[0] > 23 || fields[1] > 59 || fields[2] > 59) return bad();
  std::int64_t offsetMinutes = 0;
  if (zone == "z" || zone.empty()) {
    offsetMinutes = 0;
  } else if (zone[0] == '+' || zone[0] == '-') {
    const int sign = zone[0] == '+' ? 1 : -1;
    std::string z(zone.substr(1));
    if (z.size() == 5 && z[2] == ':') z.erase(2, 1);
    const auto hh = z.size() >= 2 ? number(std::string_view(z).substr(0, 2)) : std::nullopt;
    const auto mm = z.size() == 4 ? number(std::string_view(z).substr(2, 2)) : std::optional<std::int64_t>(0);
    if ((z.size() != 2 && z.size() != 4) || !hh || !mm || *hh > 23 || *mm > 59) return bad();
    offsetMinutes = sign * (*hh * 60 + *mm);
  } else {
    return bad();
  }
  if (fields[2] != 0) return notOnTheHour(original);
  const std::int64_t minutes = fields[0] * 60 + fields[1] - offsetMinutes;  // UTC minutes of the day
  if (minutes % 60 != 0) return notOnTheHour(original);
  return midnight + floorDiv(minutes, 60);
}

}  // namespace

std::variant<Hour, HourTextError> parseHoursText(std::string_view text) {
  std::string s = normalised(text);
  if (startsWith(s, "for ")) s.erase(0, 4);
  std::size_t n = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  const auto value = number(std::string_view(s).substr(0, n));
  std::string unit = s.substr(n);
  if (!unit.empty() && unit[0] == ' ') unit.erase(0, 1);
  Hour per = 0;
  if (unit.empty() || unit == "h" || unit == "hr" || unit == "hrs" || unit == "hour" || unit == "hours")
    per = 1;
  else if (unit == "d" || unit == "day" || unit == "days")
    per = kHoursPerDay;
  else if (unit == "w" || unit == "wk" || unit == "week" || unit == "weeks")
    per = 7 * kHoursPerDay;
  if (!value || per == 0)
    return HourTextError{"'" + std::string(text) + "' is not a duration (write 72h, 3d, 3 days, 1w)"};
  if (*value <= 0) return HourTextError{"a duration must be at least one hour, not '" + std::string(text) + "'"};
  if (*value > kMaxSpanHours / per) return HourTextError{"'" + std::string(text) + "' is longer than ten years"};
  return *value * per;
}

std::variant<Hour, HourTextError> parseHourText(std::string_view text, Hour now) {
  const std::string s = normalised(text);
  if (s.empty()) return HourTextError{"an empty time"};
  if (s == "now") return now;
  if (const auto h = number(s)) return *h;  // an hour number, as the protocol writes it
  if (s[0] == '+' || startsWith(s, "in ")) {
    auto span = parseHoursText(s[0] == '+' ? std::string_view(s).substr(1) : std::string_view(s).substr(3));
    if (auto* e = std::get_if<HourTextError>(&span)) return *e;
    return now + std::get<Hour>(span);
  }
  if (s.size() >= 10 && std::isdigit(static_cast<unsigned char>(s[0])) && s[4] == '-') return iso8601(text, s);
  const Hour today = floorDiv(now, kHoursPerDay) * kHoursPerDay;
  for (const auto& [word, day] : {std::pair<std::string_view, Hour>{"today", 0}, {"tomorrow", 1}}) {
    if (s == word) return today + day * kHoursPerDay;
    if (startsWith(s, std::string(word) + " ")) {
      auto tod = timeOfDay(std::string_view(s).substr(word.size() + 1));
      if (auto* e = std::get_if<HourTextError>(&tod)) return *e;
      return today + day * kHoursPerDay + std::get<Hour>(tod);
    }
  }
  auto tod = timeOfDay(s);
  if (std::holds_alternative<HourTextError>(tod)) {
    return HourTextError{
        "'" + std::string(text) +
        "' is not a time (write now, tomorrow 9am, +3d, in 5 hours, 2026-12-08T09:00Z or an hour number)"};
  }
  const Hour next = today + std::get<Hour>(tod);
  return next >= now ? next : next + kHoursPerDay;
}

std::string isoHour(Hour h) {
  using namespace std::chrono;
  const Hour day = floorDiv(h, kHoursPerDay);
  const year_month_day date{sys_days(days(day))};
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02lld:00Z", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<long long>(h - day * kHoursPerDay));
  return buf;
}

std::string isoTimeMicros(std::int64_t micros) {
  constexpr std::int64_t kMicrosPerHour = 3'600'000'000;
  const Hour h = floorDiv(micros, kMicrosPerHour);
  const std::int64_t within = micros - h * kMicrosPerHour;
  std::string s = isoHour(h);  // "...THH:00Z"
  char tail[64];               // room for any long long, which GCC checks (-Wformat-truncation)
  std::snprintf(tail, sizeof tail, "%02lld:%02lld.%06lldZ", static_cast<long long>(within / 60'000'000),
                static_cast<long long>(within / 1'000'000 % 60), static_cast<long long>(within % 1'000'000));
  s.replace(s.size() - 3, 3, tail);
  return s;
}

}  // namespace tessera
