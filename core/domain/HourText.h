#pragma once
// Delivery hours as people write them, always in UTC: the command line's `--start`, `--end`
// and `--for` (docs/cli.md, "Times"). The market trades whole hours, so a time that is not on
// an hour boundary is refused rather than rounded.
#include "core/domain/Types.h"

#include <string>
#include <string_view>
#include <variant>

namespace tessera {

struct HourTextError {
  std::string message;
};

// A point in time, relative to `now` (the current hour) where the phrase is relative:
//   "now"; an hour number ("498960", hours since 1970); ISO 8601 "2026-12-08T09:00Z",
//   "2026-12-08T09Z", "2026-12-08 09:00", "2026-12-08" (midnight), "2026-12-08T10:00+01:00";
//   "today", "tomorrow", either with a time of day ("tomorrow 9am", "today 14:00", "tomorrow noon",
//   "tomorrow midnight"); a time of day alone ("9am", "21:00": its next occurrence from now on);
//   "+3d", "+36h", "+2w", "in 3 days", "in 5 hours" (from now).
[[nodiscard]] std::variant<Hour, HourTextError> parseHourText(std::string_view text, Hour now);

// A positive number of hours: "72h", "3d", "1w", "72 hours", "3 days", "1 week", a bare "72"
// (hours); a leading "for " is allowed ("for 3 days").
[[nodiscard]] std::variant<Hour, HourTextError> parseHoursText(std::string_view text);

// ISO 8601 in UTC: "2026-12-08T09:00Z".
[[nodiscard]] std::string isoHour(Hour h);
// An instant in microseconds since 1970 as ISO 8601 UTC to the microsecond
// ("2026-12-07T09:41:05.000250Z").
[[nodiscard]] std::string isoTimeMicros(std::int64_t micros);

}  // namespace tessera
