// The pattern and the byte check on the GPU: the runner's initial contents (fill_pattern_on_gpu),
// and a buffer's final contents against what the program expects (its own pattern, except the
// `expect` ranges, which hold another buffer's pattern), compared by a kernel where the bytes
// are, so only a mismatch count and the first mismatch come back to the host.
// Checking a 1 GiB run on the CPU (copy back, rebuild the expectation, compare) took 40-68 s of
// a device call; on the GPU it reads each byte once at memory speed.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "byte-check.h"

__global__ void check_bytes(const uint8_t* data, uint64_t size, uint32_t buffer, uint32_t place,
                            const CheckRange* ranges, int n, CheckResult* out) {
  unsigned long long wrong = 0, first = ~0ull;
  check_thread(data, size, buffer, place, ranges, n, (uint64_t)blockIdx.x * blockDim.x + threadIdx.x,
               (uint64_t)gridDim.x * blockDim.x, wrong, first);
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

/** The pattern of (buffer, place) into `size` bytes at `out` (4-byte aligned; device memory or
 *  host-mapped memory), on the current device. Little-endian: byte k is byte (k & 3) of word k >> 2. */
__global__ void fill_pattern_kernel(uint8_t* out, uint64_t size, uint32_t buffer, uint32_t place) {
  uint64_t words = size / 4;
  for (uint64_t w = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += (uint64_t)gridDim.x * blockDim.x)
    reinterpret_cast<uint32_t*>(out)[w] = pattern_word(buffer, place, (uint32_t)w);
  if (blockIdx.x == 0 && threadIdx.x == 0)
    for (uint64_t k = words * 4; k < size; k++) out[k] = pattern_byte(buffer, place, k);
}

static cudaError_t fill_pattern_on_gpu(uint8_t* out, uint64_t size, uint32_t buffer, uint32_t place) {
  unsigned blocks = (unsigned)std::min<uint64_t>(std::max<uint64_t>(1, (size / 4 + 255) / 256), 4096);
  fill_pattern_kernel<<<blocks, 256>>>(out, size, buffer, place);
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? cudaDeviceSynchronize() : e;
}

/** Checks `size` bytes at `data` (device memory of the current device, or host-mapped memory) on
 *  the current device against `ranges` (check_ranges); fills `res` (want/got of the first wrong byte). */
static cudaError_t check_on_gpu(const uint8_t* data, uint64_t size, uint32_t buffer, uint32_t place,
                                const std::vector<CheckRange>& ranges, CheckResult* res) {
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
    int hint = -1;
    res->want = check_expected(res->first, buffer, place, ranges.data(), (int)ranges.size(), hint);
  }
  cudaFree(dr);
  cudaFree(dres);
  return e;
}
