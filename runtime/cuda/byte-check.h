// What the byte check compares (byte-check.cuh runs it on the GPU): a buffer's expected byte at
// each offset, and one thread's share of the comparison. Host and device code with no CUDA
// include, so CI tests the same loop with g++ (test/unit/runtime/byte-check.cc).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "pattern.h"
#include "program.h"

/** One expected range of a buffer: `bytes` at `at` hold the pattern of (buffer, place) from `from`. */
struct CheckRange {
  uint64_t at, bytes;
  uint32_t buffer, place;
  uint64_t from;
};

/** What comes back: wrong bytes, and the lowest wrong offset with its byte and the expected one. */
struct CheckResult {
  unsigned long long wrong;
  unsigned long long first;  // ~0 when none
  uint8_t got, want;
};

/** The expected byte at `k`: the range holding it (ranges sorted by `at`, disjoint), else the
 *  buffer's own pattern. `hint` is the range a thread looked at last (bytes come in order). */
DMAC_HD inline uint8_t check_expected(uint64_t k, uint32_t buffer, uint32_t place, const CheckRange* r, int n,
                                      int& hint) {
  if (hint < 0 || hint >= n || k < r[hint].at || k >= r[hint].at + r[hint].bytes) {
    int lo = 0, hi = n;  // the last range with at <= k
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (r[mid].at <= k) lo = mid + 1;
      else hi = mid;
    }
    hint = lo - 1;
  }
  if (hint >= 0 && k < r[hint].at + r[hint].bytes)
    return pattern_byte(r[hint].buffer, r[hint].place, r[hint].from + (k - r[hint].at));
  return pattern_byte(buffer, place, k);
}


static const int CHECK_SPAN = 64;  // bytes per thread per step, in order (the hint stays useful)

/** Thread `t` of `threads`: compares its spans of `data` with the expectation; adds its wrong
 *  bytes to `wrong` and lowers `first` to its lowest wrong offset. */
DMAC_HD inline void check_thread(const uint8_t* data, uint64_t size, uint32_t buffer, uint32_t place,
                                 const CheckRange* ranges, int n, uint64_t t, uint64_t threads,
                                 unsigned long long& wrong, unsigned long long& first) {
  int hint = -1;
  for (uint64_t base = t * CHECK_SPAN; base < size; base += threads * CHECK_SPAN) {
    uint64_t end = base + CHECK_SPAN < size ? base + CHECK_SPAN : size;
    for (uint64_t k = base; k < end; k++) {
      if (data[k] != check_expected(k, buffer, place, ranges, n, hint)) {
        wrong++;
        if (k < first) first = k;
      }
    }
  }
}

/** Buffer `b`'s expected ranges (the program's `expect` lines for it), sorted by offset. */
inline std::vector<CheckRange> check_ranges(const dmac::Program& p, const dmac::Buffer& b) {
  std::vector<CheckRange> out;
  for (const dmac::Expect& e : p.expects)
    if (e.at.buffer == b.id && e.at.place == b.place)
      out.push_back({e.at.offset, e.bytes, (uint32_t)e.from.buffer, (uint32_t)e.from.place, e.from.offset});
  std::sort(out.begin(), out.end(), [](const CheckRange& x, const CheckRange& y) { return x.at < y.at; });
  return out;
}
