#pragma once
// What the calling thread has used so far: minor page faults (each first touch of a fresh page,
// 2-12 us apiece on a VM) and CPU time. Benchmarks take the difference around what they time.
#include <sys/resource.h>

namespace tessera::bench {

struct ThreadUsage {
  long faults = 0;
  double cpuSeconds = 0;  // user + system
  static ThreadUsage now() {
    rusage u{};
    getrusage(RUSAGE_THREAD, &u);
    auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
    return {u.ru_minflt, sec(u.ru_utime) + sec(u.ru_stime)};
  }
};

}  // namespace tessera::bench
