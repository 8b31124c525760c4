// Wall-clock timestamps for log and status lines, in local time with
// milliseconds: "2026-12-03 07:24:13" + separator + "123".
// Thread-safety: a pure function of the clock.
#pragma once

#include <time.h>

#include <cstdio>
#include <ctime>
#include <string>

namespace wirebench {

// `ms_separator` goes between the seconds and the milliseconds (YCSB's
// status lines use ':', log lines '.').
inline std::string LocalTimestamp(char ms_separator) {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  tm t;
  localtime_r(&ts.tv_sec, &t);
  char secs[32];
  std::strftime(secs, sizeof(secs), "%Y-%m-%d %H:%M:%S", &t);
  char out[48];
  std::snprintf(out, sizeof(out), "%s%c%03ld", secs, ms_separator, ts.tv_nsec / 1000000);
  return out;
}

}  // namespace wirebench
