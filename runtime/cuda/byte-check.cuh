// The byte check on the GPU: a buffer's final contents against what the program expects (its own
// pattern, except the `expect` ranges, which hold another buffer's pattern), compared by a kernel
// where the bytes are, so only a mismatch count and the first mismatch come back to the host.
// Checking a 1 GiB run on the CPU (copy back, rebuild the expectation, compare) took 40-68 s of
// a device call; on the GPU it reads each byte once at memory speed.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "pattern.h"

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
__device__ __forceinline__ uint8_t check_expected(uint64_t k, uint32_t buffer, uint32_t place,
                                                  const CheckRange* r, int n, int& hint) {
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

static const int CHECK_SPAN = 64;  // bytes per thread per step: whole 4-byte words, in order

__global__ void check_bytes(const uint8_t* data, uint64_t size, uint32_t buffer, uint32_t place,
                            const CheckRange* ranges, int n, CheckResult* out) {
  unsigned long long wrong = 0, first = ~0ull;
  int hint = -1;
  uint64_t stride = (uint64_t)gridDim.x * blockDim.x * CHECK_SPAN;
  for (uint64_t base = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) * CHECK_SPAN; base < size;
       base += stride) {
    uint64_t end = base + CHECK_SPAN < size ? base + CHECK_SPAN : size;
    for (uint64_t k = base; k < end; k++) {
      if (data[k] != check_expected(k, buffer, place, ranges, n, hint)) {
        wrong++;
        if (k < first) first = k;
      }
    }
  }
  for (int d = 16; d > 0; d /= 2) {  // one atomic per warp
    wrong += __shfl_down_sync(0xffffffffu, wrong, d);
    unsigned long long f = __shfl_down_sync(0xffffffffu, first, d);
    first = f < first ? f : first;
  }
  if ((threadIdx.x & 31) == 0 && wrong) {
    atomicAdd(&out->wrong, wrong);
    atomicMin(&out->first, first);
  }
}

/** Checks `size` bytes at `data` (device memory of the current device, or host-mapped memory) on
 *  the current device; fills `res` (want/got of the first wrong byte). */
static cudaError_t check_on_gpu(const uint8_t* data, uint64_t size, uint32_t buffer, uint32_t place,
                                std::vector<CheckRange> ranges, CheckResult* res) {
  std::sort(ranges.begin(), ranges.end(), [](const CheckRange& a, const CheckRange& b) { return a.at < b.at; });
  *res = CheckResult{0, ~0ull, 0, 0};
  CheckRange* dr = nullptr;
  CheckResult* dres = nullptr;
  cudaError_t e = cudaMalloc((void**)&dr, std::max<size_t>(1, ranges.size()) * sizeof(CheckRange));
  if (e == cudaSuccess) e = cudaMalloc((void**)&dres, sizeof(CheckResult));
  if (e == cudaSuccess && !ranges.empty())
    e = cudaMemcpy(dr, ranges.data(), ranges.size() * sizeof(CheckRange), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemcpy(dres, res, sizeof(CheckResult), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) {
    uint64_t threads = (size + CHECK_SPAN - 1) / CHECK_SPAN;
    unsigned blocks = (unsigned)std::min<uint64_t>(std::max<uint64_t>(1, (threads + 255) / 256), 4096);
    check_bytes<<<blocks, 256>>>(data, size, buffer, place, dr, (int)ranges.size(), dres);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpy(res, dres, sizeof(CheckResult), cudaMemcpyDeviceToHost);
  if (e == cudaSuccess && res->wrong) {
    e = cudaMemcpy(&res->got, data + res->first, 1, cudaMemcpyDefault);
    uint8_t want = pattern_byte(buffer, place, res->first);
    for (const CheckRange& r : ranges)
      if (res->first >= r.at && res->first < r.at + r.bytes) want = pattern_byte(r.buffer, r.place, r.from + res->first - r.at);
    res->want = want;
  }
  cudaFree(dr);
  cudaFree(dres);
  return e;
}
