// The byte check's loop on the host (test/unit/runtime/runtime.test.ts builds and runs this with
// g++): runtime/cuda/byte-check.h's check_thread is the code every GPU thread of the kernel runs.
// For every buffer of each program given, the contents the program's `expect` lines describe
// are built byte by byte, the way the CPU check did before, then compared by check_thread over
// a few thread counts (one thread, a few, more threads than spans): no wrong byte; then two bytes
// are altered, and exactly those two must be found, the lower one first.
//   byte-check PROGRAM.txt ...      prints one line per buffer, and "byte-check: ok" at the end

#include <cstdio>
#include <fstream>
#include <sstream>

#include "byte-check.h"
#include "program.h"

struct Found {
  unsigned long long wrong = 0, first = ~0ull;
};

static Found check(const std::vector<uint8_t>& data, const dmac::Buffer& b, const std::vector<CheckRange>& ranges,
                   uint64_t threads) {
  Found f;
  for (uint64_t t = 0; t < threads; t++)
    check_thread(data.data(), data.size(), (uint32_t)b.id, (uint32_t)b.place, ranges.data(), (int)ranges.size(), t,
                 threads, f.wrong, f.first);
  return f;
}

static bool buffer_ok(const dmac::Program& p, const dmac::Buffer& b) {
  std::vector<uint8_t> data(b.size);
  for (uint64_t k = 0; k < b.size; k++) data[k] = pattern_byte((uint32_t)b.id, (uint32_t)b.place, k);
  for (const dmac::Expect& e : p.expects)
    if (e.at.buffer == b.id && e.at.place == b.place)
      for (uint64_t i = 0; i < e.bytes; i++)
        data[e.at.offset + i] = pattern_byte((uint32_t)e.from.buffer, (uint32_t)e.from.place, e.from.offset + i);
  std::vector<CheckRange> ranges = check_ranges(p, b);
  for (uint64_t threads : {(uint64_t)1, (uint64_t)3, b.size / CHECK_SPAN + 7}) {
    Found clean = check(data, b, ranges, threads);
    if (clean.wrong != 0) {
      printf("%s@%d: %llu wrong bytes in the expected contents (first at %llu; %llu threads)\n", b.name.c_str(), b.place,
             clean.wrong, clean.first, (unsigned long long)threads);
      return false;
    }
    std::vector<uint8_t> bad = data;
    uint64_t a = b.size * 2 / 3, z = b.size / 5;
    bad[a] ^= 0x5a;
    bad[z] ^= 0x01;
    Found f = check(bad, b, ranges, threads);
    if (f.wrong != 2 || f.first != z) {
      printf("%s@%d: two altered bytes (%llu, %llu) found as %llu wrong, first at %llu (%llu threads)\n",
             b.name.c_str(), b.place, (unsigned long long)z, (unsigned long long)a, f.wrong, f.first,
             (unsigned long long)threads);
      return false;
    }
  }
  printf("%s@%d: %llu bytes, %zu expected ranges: ok\n", b.name.c_str(), b.place, (unsigned long long)b.size,
         ranges.size());
  return true;
}

int main(int argc, char** argv) {
  bool ok = true;
  for (int i = 1; i < argc; i++) {
    std::ifstream f(argv[i], std::ios::binary);
    std::ostringstream text;
    text << f.rdbuf();
    dmac::Program p;
    std::string err;
    if (!dmac::parse(text.str(), p, err)) {
      printf("%s: %s\n", argv[i], err.c_str());
      return 1;
    }
    for (const dmac::Buffer& b : p.buffers) ok = buffer_ok(p, b) && ok;
  }
  printf("byte-check: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
