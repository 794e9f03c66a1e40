// The source pattern (mirror of src/backend/cuda/pattern.ts; test/unit/backend/cuda/cuda.test.ts
// pins both to the same bytes): byte `offset` of buffer `buffer` on `place` (a GPU rank, or
// HOST_PLACE) is byte (offset & 3) of a 32-bit hash of (buffer, place, offset >> 2).
#pragma once
#include <cstdint>

// Host and device: the runner fills buffers on the host and checks them on the GPU (byte-check.cuh).
#ifdef __CUDACC__
#define DMAC_HD __host__ __device__
#else
#define DMAC_HD
#endif

static const uint32_t HOST_PLACE = 255;

DMAC_HD static inline uint32_t pattern_word(uint32_t buffer, uint32_t place, uint32_t word) {
  uint32_t h = (word * 0x9e3779b1u) ^ ((buffer + 1u) * 0x85ebca77u) ^ ((place + 1u) * 0xc2b2ae3du);
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

DMAC_HD static inline uint8_t pattern_byte(uint32_t buffer, uint32_t place, uint64_t offset) {
  return (uint8_t)(pattern_word(buffer, place, (uint32_t)(offset >> 2)) >> (8 * (offset & 3)));
}
