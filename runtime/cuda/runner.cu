// dmac-cuda-run: runs one dmac CUDA command program (program.txt, the line format of
// src/backend/cuda/text.ts; docs/cuda.md) on real GPUs, times it as AMD-DMA-Latte times
// (host steady_clock from the first submit, or from the trigger store when prelaunched, until the
// host sees the last completion word, spin-polling pinned host-mapped memory), and verifies every
// byte of every buffer against the compiler's expectation, on the GPU (byte-check.cuh).
//
//   dmac-cuda-run PROGRAM.txt [--iters N] [--warmup N] [--label TEXT] [--json FILE]
//                 [--sm-check N] [--sm-limit-ms MS]
//
// --sm-check N: after the timed runs, N more (after one warm-up) while a kernel holds every SM of
// every GPU (the full-SM check below; its result is the run's "smCheck" object). The kernel ends
// at the latest after --sm-limit-ms (default 2000, at most 5000).
// One GPU per rank (device g for rank g); refuses when the machine has fewer. Exit 0: verified;
// 1: wrong bytes or a hang; 2: bad input or a CUDA error.

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "byte-check.cuh"
#include "pattern.h"
#include "sha256.h"

#define CK(x) check_rt((x), #x, __LINE__)
#define CKD(x) check_drv((x), #x, __LINE__)

static void check_rt(cudaError_t e, const char* what, int line) {
  if (e != cudaSuccess) {
    fprintf(stderr, "dmac-cuda-run: %s failed (line %d): %s\n", what, line, cudaGetErrorString(e));
    exit(2);
  }
}
static void check_drv(CUresult e, const char* what, int line) {
  if (e != CUDA_SUCCESS) {
    const char* s = "?";
    cuGetErrorString(e, &s);
    fprintf(stderr, "dmac-cuda-run: %s failed (line %d): %s\n", what, line, s);
    exit(2);
  }
}
[[noreturn]] static void bad(const std::string& why) {
  fprintf(stderr, "dmac-cuda-run: %s\n", why.c_str());
  exit(2);
}

// ---- the program ----------------------------------------------------------------------------

struct Loc {
  int buffer;
  int place;  // GPU rank, or HOST_PLACE
  uint64_t offset;
};
struct Copy {
  Loc src, dst;
  uint64_t bytes;
};
enum Op { COPY, BATCH, WAIT, WRITE, TIMESTAMP };
struct Cmd {
  Op op;
  std::vector<Copy> copies;  // COPY: one, BATCH: n
  int word = 0;
  bool eq = false;
  uint32_t value = 0;
  // Prepared for BATCH: pointer arrays and one attribute per copy.
  std::vector<void*> dsts;
  std::vector<const void*> srcs;
  std::vector<size_t> sizes, attrIdx;
  std::vector<cudaMemcpyAttributes> attrs;
};
struct Stream {
  int gpu, id;
  std::vector<Cmd> cmds;
  cudaStream_t s = nullptr;
};
struct Buffer {
  int id, place;
  uint64_t size;
  std::string name;
  uint8_t* ptr = nullptr;      // device memory, or pinned host memory
  uint8_t* pattern = nullptr;  // pinned host copy of its initial pattern
};
struct Expect {
  Loc at;
  uint64_t bytes;
  Loc from;
};
struct Program {
  int gpus = 0, words = 0;
  std::vector<Buffer> buffers;
  bool has_trigger = false;
  int trigger_word = 0;
  uint32_t trigger_value = 0;
  std::vector<std::pair<int, uint32_t>> external, completions;
  std::vector<Stream> streams;
  std::vector<Expect> expects;
  /** SHA-256 of the program.txt bytes read: the result names the program it ran by it. */
  std::string sha256;
};

static int parse_place(const std::string& s) {
  if (s == "host") return HOST_PLACE;
  return std::stoi(s);
}

static Loc read_loc(std::istringstream& in) {
  std::string place;
  Loc l;
  in >> l.buffer >> place >> l.offset;
  l.place = parse_place(place);
  return l;
}

static Copy read_copy(std::istringstream& in) {
  Copy c;
  c.src = read_loc(in);
  c.dst = read_loc(in);
  in >> c.bytes;
  return c;
}

static Program load(const char* path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) bad(std::string("cannot read ") + path);
  // Read once, hash those bytes and parse them: the hash names exactly what runs.
  std::ostringstream bytes;
  bytes << file.rdbuf();
  Program p;
  p.sha256 = sha256_hex(bytes.str());
  std::istringstream f(bytes.str());
  std::string line, key;
  std::getline(f, line);
  if (line != "dmac-cuda-program 1") bad(std::string(path) + " is not a dmac CUDA program (v1)");
  Stream* cur = nullptr;
  int lineno = 1;
  while (std::getline(f, line)) {
    lineno++;
    std::istringstream in(line);
    in >> key;
    if (key == "gpus") in >> p.gpus;
    else if (key == "words") in >> p.words;
    else if (key == "buffer") {
      Buffer b;
      std::string place;
      in >> b.id >> place >> b.size >> b.name;
      b.place = parse_place(place);
      p.buffers.push_back(b);
    } else if (key == "trigger") {
      p.has_trigger = true;
      in >> p.trigger_word >> p.trigger_value;
    } else if (key == "external" || key == "completion") {
      int w;
      uint32_t v;
      in >> w >> v;
      (key == "external" ? p.external : p.completions).push_back({w, v});
    } else if (key == "stream") {
      Stream s;
      int n;
      in >> s.gpu >> s.id >> n;
      p.streams.push_back(s);
      cur = &p.streams.back();
    } else if (key == "copy" || key == "batch" || key == "wait" || key == "write" || key == "timestamp") {
      if (!cur) bad("command before any stream at line " + std::to_string(lineno));
      Cmd c;
      if (key == "copy") {
        c.op = COPY;
        c.copies.push_back(read_copy(in));
      } else if (key == "batch") {
        c.op = BATCH;
        int n;
        in >> n;
        for (int i = 0; i < n; i++) {
          std::getline(f, line);
          lineno++;
          std::istringstream item(line);
          std::string k;
          item >> k;
          if (k != "item") bad("expected 'item' at line " + std::to_string(lineno));
          c.copies.push_back(read_copy(item));
        }
      } else if (key == "wait") {
        std::string cmp;
        c.op = WAIT;
        in >> c.word >> cmp >> c.value;
        c.eq = cmp == "eq";
      } else if (key == "write") {
        c.op = WRITE;
        in >> c.word >> c.value;
      } else {
        c.op = TIMESTAMP;
      }
      cur->cmds.push_back(std::move(c));
    } else if (key == "expect") {
      Expect e;
      e.at = read_loc(in);
      in >> e.bytes;
      e.from = read_loc(in);
      p.expects.push_back(e);
    } else if (key == "end") {
      return p;
    } else {
      bad("unknown record '" + key + "' at line " + std::to_string(lineno));
    }
    if (in.fail()) bad("malformed line " + std::to_string(lineno) + ": " + line);
  }
  bad(std::string(path) + " ends without 'end'");
}

// ---- memory ---------------------------------------------------------------------------------

static const int WORD_STRIDE = 16;  // one 64-byte line per word: each is polled on its own

struct Run {
  Program p;
  std::map<std::pair<int, int>, Buffer*> byKey;  // (id, place)
  volatile uint32_t* words = nullptr;
  CUdeviceptr wordsDev = 0;
};

static uint8_t* addr(Run& r, const Loc& l) {
  auto it = r.byKey.find({l.buffer, l.place});
  if (it == r.byKey.end()) bad("a command names buffer " + std::to_string(l.buffer) + " on a place it does not exist");
  if (l.offset > it->second->size) bad("offset past the end of buffer " + it->second->name);
  return it->second->ptr + l.offset;
}

static void fill_pattern(uint8_t* out, int buffer, int place, uint64_t size) {
  for (uint64_t w = 0; w * 4 < size; w++) {
    uint32_t v = pattern_word((uint32_t)buffer, (uint32_t)place, (uint32_t)w);
    uint64_t n = std::min<uint64_t>(4, size - w * 4);
    memcpy(out + w * 4, &v, n);  // little-endian: byte k of the word is byte (offset & 3) = k
  }
}

static void setup(Run& r) {
  Program& p = r.p;
  int have = 0;
  CK(cudaGetDeviceCount(&have));
  if (have < p.gpus) {
    fprintf(stderr, "dmac-cuda-run: the program needs %d GPUs (one per rank), this machine has %d\n", p.gpus, have);
    exit(2);
  }
  for (int g = 0; g < p.gpus; g++) {
    CK(cudaSetDevice(g));
    CK(cudaFree(0));  // create the context
    for (int h = 0; h < p.gpus; h++)
      if (h != g) {
        int can = 0;
        CK(cudaDeviceCanAccessPeer(&can, g, h));
        if (can) CK(cudaDeviceEnablePeerAccess(h, 0));
      }
  }
  CK(cudaSetDevice(0));
  void* w = nullptr;
  CK(cudaHostAlloc(&w, (size_t)std::max(1, p.words) * WORD_STRIDE * 4, cudaHostAllocPortable | cudaHostAllocMapped));
  r.words = (volatile uint32_t*)w;
  void* wd = nullptr;
  CK(cudaHostGetDevicePointer(&wd, w, 0));
  r.wordsDev = (CUdeviceptr)wd;
  for (Buffer& b : p.buffers) {
    CK(cudaHostAlloc((void**)&b.pattern, b.size, cudaHostAllocPortable));
    fill_pattern(b.pattern, b.id, b.place, b.size);
    if (b.place == (int)HOST_PLACE) {
      CK(cudaHostAlloc((void**)&b.ptr, b.size, cudaHostAllocPortable | cudaHostAllocMapped));
    } else {
      CK(cudaSetDevice(b.place));
      CK(cudaMalloc((void**)&b.ptr, b.size));
    }
    r.byKey[{b.id, b.place}] = &b;
  }
  for (Stream& s : p.streams) {
    CK(cudaSetDevice(s.gpu));
    CK(cudaStreamCreateWithFlags(&s.s, cudaStreamNonBlocking));
    for (Cmd& c : s.cmds) {
      for (Copy& x : c.copies) {
        if (x.src.offset + x.bytes > r.byKey[{x.src.buffer, x.src.place}]->size ||
            x.dst.offset + x.bytes > r.byKey[{x.dst.buffer, x.dst.place}]->size)
          bad("a copy runs past the end of its buffer");
      }
      for (Copy& x : c.copies) {  // pointers resolved here, not in the timed submission
        c.dsts.push_back(addr(r, x.dst));
        c.srcs.push_back(addr(r, x.src));
        c.sizes.push_back(x.bytes);
        cudaMemcpyAttributes a;
        memset(&a, 0, sizeof a);
        a.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
        a.srcLocHint.type = x.src.place == (int)HOST_PLACE ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
        a.srcLocHint.id = x.src.place == (int)HOST_PLACE ? 0 : x.src.place;
        a.dstLocHint.type = x.dst.place == (int)HOST_PLACE ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
        a.dstLocHint.id = x.dst.place == (int)HOST_PLACE ? 0 : x.dst.place;
        c.attrIdx.push_back(c.attrs.size());
        c.attrs.push_back(a);
      }
    }
  }
  CK(cudaSetDevice(0));
}

/** Every buffer back to its pattern, every word to 0 (untimed, before each iteration). */
static void reset(Run& r) {
  for (Buffer& b : r.p.buffers) {
    if (b.place == (int)HOST_PLACE) memcpy(b.ptr, b.pattern, b.size);
    else {
      CK(cudaSetDevice(b.place));
      CK(cudaMemcpy(b.ptr, b.pattern, b.size, cudaMemcpyHostToDevice));
    }
  }
  for (int i = 0; i < std::max(1, r.p.words); i++) r.words[i * WORD_STRIDE] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int g = 0; g < r.p.gpus; g++) {
    CK(cudaSetDevice(g));
    CK(cudaDeviceSynchronize());
  }
}

// ---- one run --------------------------------------------------------------------------------

static void submit(Run& r, Stream& s, Cmd& c) {
  switch (c.op) {
    case COPY:
      CK(cudaMemcpyAsync(c.dsts[0], c.srcs[0], c.sizes[0], cudaMemcpyDefault, s.s));
      break;
    case BATCH:
#if CUDART_VERSION >= 13000
      CK(cudaMemcpyBatchAsync(c.dsts.data(), c.srcs.data(), c.sizes.data(), c.sizes.size(), c.attrs.data(),
                              c.attrIdx.data(), c.attrs.size(), s.s));
#else
      {
        size_t fail = 0;
        CK(cudaMemcpyBatchAsync(c.dsts.data(), (void**)c.srcs.data(), c.sizes.data(), c.sizes.size(),
                                c.attrs.data(), c.attrIdx.data(), c.attrs.size(), &fail, s.s));
      }
#endif
      break;
    case WAIT:
      CKD(cuStreamWaitValue32((CUstream)s.s, r.wordsDev + (CUdeviceptr)c.word * WORD_STRIDE * 4, c.value,
                              c.eq ? CU_STREAM_WAIT_VALUE_EQ : CU_STREAM_WAIT_VALUE_GEQ));
      break;
    case WRITE:
      CKD(cuStreamWriteValue32((CUstream)s.s, r.wordsDev + (CUdeviceptr)c.word * WORD_STRIDE * 4, c.value,
                               CU_STREAM_WRITE_VALUE_DEFAULT));
      break;
    case TIMESTAMP:
      break;  // not timed per command: the run's own clock is the host's
  }
}

static void store(Run& r, int word, uint32_t value) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  r.words[word * WORD_STRIDE] = value;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

/** The timed part of one run: microseconds until the last completion word is seen, or a negative
 *  number on a hang (10 s without progress). Leaves the GPUs unsynchronised: the full-SM check
 *  must look at its kernel before anything waits for the devices. */
static double run_copies(Run& r) {
  using clk = std::chrono::steady_clock;
  Program& p = r.p;
  clk::time_point t0;
  auto submit_all = [&] {
    for (Stream& s : p.streams) {
      CK(cudaSetDevice(s.gpu));
      for (Cmd& c : s.cmds) submit(r, s, c);
    }
  };
  if (p.has_trigger) {
    submit_all();
    t0 = clk::now();
    for (auto& e : p.external) store(r, e.first, e.second);
    store(r, p.trigger_word, p.trigger_value);
  } else {
    t0 = clk::now();
    submit_all();
    for (auto& e : p.external) store(r, e.first, e.second);
  }
  for (auto& c : p.completions) {
    while (r.words[c.first * WORD_STRIDE] != c.second) {
      if (std::chrono::duration<double>(clk::now() - t0).count() > 10.0) return -1;
    }
  }
  return std::chrono::duration<double, std::micro>(clk::now() - t0).count();
}

static void sync_all(Run& r) {
  for (int g = 0; g < r.p.gpus; g++) {
    CK(cudaSetDevice(g));
    CK(cudaDeviceSynchronize());
  }
}

/** One timed run: microseconds, or a negative number on a hang (10 s without progress). */
static double run_once(Run& r) {
  double us = run_copies(r);
  if (us >= 0) sync_all(r);
  return us;
}

// ---- verification ---------------------------------------------------------------------------

/** Mismatching bytes over all buffers, counted on the GPU (byte-check.cuh): each buffer on its
 *  own GPU, host buffers through their mapping on GPU 0. Prints each buffer's first wrong byte. */
static uint64_t verify(Run& r) {
  uint64_t wrong = 0, checked = 0;
  for (Buffer& b : r.p.buffers) {
    std::vector<CheckRange> ranges;
    for (Expect& e : r.p.expects)
      if (e.at.buffer == b.id && e.at.place == b.place)
        ranges.push_back({e.at.offset, e.bytes, (uint32_t)e.from.buffer, (uint32_t)e.from.place, e.from.offset});
    CK(cudaSetDevice(b.place == (int)HOST_PLACE ? 0 : b.place));
    CheckResult res;
    CK(check_on_gpu(b.ptr, b.size, (uint32_t)b.id, (uint32_t)b.place, ranges, &res));
    if (res.wrong)
      fprintf(stderr, "dmac-cuda-run: %s@%s: %llu wrong bytes, the first at [%llu] is 0x%02x, expected 0x%02x\n",
              b.name.c_str(), b.place == (int)HOST_PLACE ? "host" : std::to_string(b.place).c_str(), res.wrong,
              res.first, res.got, res.want);
    wrong += res.wrong;
    checked += b.size;
  }
  CK(cudaSetDevice(0));
  fprintf(stderr, "dmac-cuda-run: verified %llu bytes on the GPU, %llu wrong\n", (unsigned long long)checked,
          (unsigned long long)wrong);
  return wrong;
}

// ---- the full-SM check (--sm-check N) ----------------------------------------------------------
//
// Do the copies run on copy engines? A persistent kernel holds every SM of every GPU the program
// uses (grid = SMs x the most blocks of it one SM can hold, 1024 threads each: every thread slot
// taken), then the configuration's copies run while it spins. A copy the driver runs on SMs
// cannot start before the kernel ends, so "every completion word seen while the kernel still
// runs" means copy engines, and a copy time near the kernel's limit means a fallback to SMs.
// The kernel ends when the host sets a stop word, or by itself after --sm-limit-ms: it cannot
// hang the machine.

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// dev: [0] blocks arrived, [1] stop (device memory, so only block 0 reads the host's stop word:
// the others poll L2, not the PCIe link the host copies use). resident / timedOut: host-mapped.
__global__ void __launch_bounds__(1024, 2) fill_sms(unsigned int* dev, const volatile uint32_t* hostStop, volatile uint32_t* resident,
                         volatile uint32_t* timedOut, unsigned long long limitNs) {
  __shared__ int done;
  const unsigned long long t0 = now_ns();
  volatile unsigned int* stop = dev + 1;
  if (threadIdx.x == 0) {
    done = 0;
    if (atomicAdd(&dev[0], 1u) + 1 == gridDim.x) {  // the last block in: every block is resident
      *resident = 1;
      __threadfence_system();
    }
  }
  __syncthreads();
  for (;;) {
    if (threadIdx.x == 0) {
      if (blockIdx.x == 0 && *hostStop) {
        *stop = 1;
        __threadfence();
      }
      if (*stop) done = 1;
      else if (now_ns() - t0 > limitNs) {
        done = 1;
        *timedOut = 1;
        __threadfence_system();
      } else __nanosleep(1000);
    }
    __syncthreads();  // every thread reads `done` between these two barriers
    if (done) break;
    __syncthreads();
  }
}

struct SmFill {
  int sms = 0, blocksPerSm = 0;
  unsigned int* dev = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, end = nullptr;
};

static const int SM_THREADS = 1024;

struct SmCheck {
  std::vector<SmFill> fills;
  volatile uint32_t* flags = nullptr;  // line 0: stop; line 1 + 2g: resident of GPU g; 2 + 2g: timed out
  uint32_t* flagsDev = nullptr;
  double limitMs = 2000;
  // Per timed iteration:
  std::vector<double> times, kernelMs;
  int occupied = 0, timedOut = 0;
  bool allResident = true;
  uint64_t wrong = 0;
  bool hung = false;
};

static volatile uint32_t* flag(SmCheck& c, int line) { return c.flags + line * WORD_STRIDE; }
static uint32_t* flag_dev(SmCheck& c, int line) { return c.flagsDev + line * WORD_STRIDE; }

static void sm_setup(SmCheck& c, int gpus) {
  void* f = nullptr;
  CK(cudaHostAlloc(&f, (size_t)(1 + 2 * gpus) * WORD_STRIDE * 4, cudaHostAllocPortable | cudaHostAllocMapped));
  c.flags = (volatile uint32_t*)f;
  void* fd = nullptr;
  CK(cudaHostGetDevicePointer(&fd, f, 0));
  c.flagsDev = (uint32_t*)fd;
  for (int g = 0; g < gpus; g++) {
    SmFill k;
    CK(cudaSetDevice(g));
    CK(cudaDeviceGetAttribute(&k.sms, cudaDevAttrMultiProcessorCount, g));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k.blocksPerSm, fill_sms, SM_THREADS, 0));
    if (k.blocksPerSm < 1) bad("the full-SM kernel fits no SM");
    int slots = 0;
    CK(cudaDeviceGetAttribute(&slots, cudaDevAttrMaxThreadsPerMultiProcessor, g));
    if (k.blocksPerSm * SM_THREADS < slots)  // another kernel's block could still fit beside it
      fprintf(stderr, "dmac-cuda-run: warning: the full-SM kernel takes %d of %d thread slots per SM on GPU %d\n",
              k.blocksPerSm * SM_THREADS, slots, g);
    CK(cudaMalloc((void**)&k.dev, 2 * sizeof(unsigned int)));
    CK(cudaStreamCreateWithFlags(&k.stream, cudaStreamNonBlocking));
    CK(cudaEventCreate(&k.start));
    CK(cudaEventCreate(&k.end));
    c.fills.push_back(k);
  }
}

/** Launches the kernel on every GPU; true when every block of every GPU is resident (waits up to
 *  a second: another process holding SMs would keep some blocks out). */
static bool sm_launch(SmCheck& c) {
  for (int i = 0; i < 1 + 2 * (int)c.fills.size(); i++) *flag(c, i) = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  unsigned long long limitNs = (unsigned long long)(c.limitMs * 1e6);
  for (int g = 0; g < (int)c.fills.size(); g++) {
    SmFill& k = c.fills[g];
    CK(cudaSetDevice(g));
    CK(cudaMemsetAsync(k.dev, 0, 2 * sizeof(unsigned int), k.stream));  // on its stream: ordered before it
    CK(cudaEventRecord(k.start, k.stream));
    fill_sms<<<k.sms * k.blocksPerSm, SM_THREADS, 0, k.stream>>>(k.dev, flag_dev(c, 0), flag_dev(c, 1 + 2 * g),
                                                                 flag_dev(c, 2 + 2 * g), limitNs);
    CK(cudaGetLastError());
    CK(cudaEventRecord(k.end, k.stream));
  }
  using clk = std::chrono::steady_clock;
  auto t0 = clk::now();
  for (int g = 0; g < (int)c.fills.size(); g++)
    while (*flag(c, 1 + 2 * g) == 0)
      if (std::chrono::duration<double>(clk::now() - t0).count() > 1.0) return false;
  return true;
}

/** True while the kernel still runs on every GPU and none reached its time limit. */
static bool sm_running(SmCheck& c) {
  for (int g = 0; g < (int)c.fills.size(); g++) {
    CK(cudaSetDevice(g));
    cudaError_t e = cudaEventQuery(c.fills[g].end);
    if (e == cudaSuccess) return false;
    if (e != cudaErrorNotReady) CK(e);
    if (*flag(c, 2 + 2 * g)) return false;
  }
  return true;
}

/** Stops the kernel; the longest of its run times over the GPUs (ms); counts a time-out. */
static double sm_stop(SmCheck& c) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  *flag(c, 0) = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  double longest = 0;
  bool out = false;
  for (int g = 0; g < (int)c.fills.size(); g++) {
    CK(cudaSetDevice(g));
    CK(cudaEventSynchronize(c.fills[g].end));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, c.fills[g].start, c.fills[g].end));
    longest = std::max(longest, (double)ms);
    out = out || *flag(c, 2 + 2 * g) != 0;
  }
  c.timedOut += out;
  return longest;
}

/** The configuration's runs again, each while the kernel holds every SM (one untimed warm-up). */
static void sm_check(Run& r, SmCheck& c, int iters) {
  sm_setup(c, r.p.gpus);
  for (int i = 0; i < 1 + iters && !c.hung; i++) {
    reset(r);
    bool resident = sm_launch(c);
    double us = run_copies(r);
    bool occupied = resident && us >= 0 && sm_running(c);  // asked before anything waits
    double ms = sm_stop(c);
    if (us < 0) c.hung = true;
    else sync_all(r);
    if (i == 0) continue;
    c.allResident = c.allResident && resident;
    c.occupied += occupied;
    c.times.push_back(us);
    c.kernelMs.push_back(ms);
  }
  c.wrong = c.hung ? 0 : verify(r);
}

static double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

/** The run's "smCheck" object (schemas/cuda-results.schema.json). */
static std::string sm_json(const SmCheck& c, double withoutUs) {
  std::ostringstream o;
  int n = (int)c.times.size();
  o << "{\"iterations\":" << n << ",\"limitMs\":" << c.limitMs << ",\"threadsPerBlock\":" << SM_THREADS << ",\"sms\":[";
  for (size_t g = 0; g < c.fills.size(); g++) o << (g ? "," : "") << c.fills[g].sms;
  o << "],\"blocksPerSm\":[";
  for (size_t g = 0; g < c.fills.size(); g++) o << (g ? "," : "") << c.fills[g].blocksPerSm;
  o << "],\"allResident\":" << (c.allResident ? "true" : "false") << ",\"completedWhileOccupied\":" << c.occupied
    << ",\"onCopyEngines\":" << (n > 0 && c.allResident && c.occupied == n ? "true" : "false")
    << ",\"withKernelUs\":" << median_of(c.times) << ",\"withoutKernelUs\":" << withoutUs
    << ",\"kernelUs\":" << median_of(c.kernelMs) * 1e3 << ",\"kernelTimedOut\":" << c.timedOut
    << ",\"verified\":" << (!c.hung && c.wrong == 0 ? "true" : "false") << ",\"wrongBytes\":" << c.wrong
    << ",\"hung\":" << (c.hung ? "true" : "false") << ",\"timesUs\":[";
  for (int i = 0; i < n; i++) o << (i ? "," : "") << c.times[i];
  o << "],\"kernelTimesUs\":[";
  for (int i = 0; i < n; i++) o << (i ? "," : "") << c.kernelMs[i] * 1e3;
  o << "]}";
  return o.str();
}

int main(int argc, char** argv) {
  if (argc < 2)
    bad("usage: dmac-cuda-run PROGRAM.txt [--iters N] [--warmup N] [--label TEXT] [--json FILE] [--sm-check N]"
        " [--sm-limit-ms MS]");
  int iters = 20, warmup = 3, smIters = 0;
  double smLimitMs = 2000;
  std::string label = argv[1], json;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--iters") iters = std::atoi(argv[i + 1]);
    else if (k == "--warmup") warmup = std::atoi(argv[i + 1]);
    else if (k == "--label") label = argv[i + 1];
    else if (k == "--json") json = argv[i + 1];
    else if (k == "--sm-check") smIters = std::atoi(argv[i + 1]);
    else if (k == "--sm-limit-ms") smLimitMs = std::atof(argv[i + 1]);
    else bad("unknown option " + k);
  }
  // The hang detector gives up after 10 s: the kernel must end well before, whatever waits for it.
  if (smLimitMs < 1 || smLimitMs > 5000) bad("--sm-limit-ms must be from 1 to 5000");
  Run r;
  r.p = load(argv[1]);
  CKD(cuInit(0));
  setup(r);
  std::vector<double> times;
  bool hung = false;
  for (int i = 0; i < warmup + iters && !hung; i++) {
    reset(r);
    double us = run_once(r);
    if (us < 0) hung = true;
    else if (i >= warmup) times.push_back(us);
  }
  uint64_t wrong = hung ? 0 : verify(r);
  double median = median_of(times);
  double fastest = times.empty() ? 0 : *std::min_element(times.begin(), times.end());
  SmCheck sc;
  sc.limitMs = smLimitMs;
  if (smIters > 0 && !hung) sm_check(r, sc, smIters);
  uint64_t bytes = 0;
  for (Stream& s : r.p.streams)
    for (Cmd& c : s.cmds)
      for (Copy& x : c.copies) bytes += x.bytes;
  std::ostringstream o;
  o << "{\"label\":\"" << label << "\",\"programSha256\":\"" << r.p.sha256 << "\",\"bytesMoved\":" << bytes
    << ",\"iterations\":" << times.size() << ",\"warmup\":" << warmup << ",\"medianUs\":" << median << ",\"minUs\":" << fastest
    << ",\"verified\":" << (!hung && wrong == 0 ? "true" : "false") << ",\"wrongBytes\":" << wrong
    << ",\"hung\":" << (hung ? "true" : "false") << ",\"timesUs\":[";
  for (size_t i = 0; i < times.size(); i++) o << (i ? "," : "") << times[i];
  o << "]";
  if (smIters > 0 && !hung) o << ",\"smCheck\":" << sm_json(sc, median);
  o << "}";
  printf("%s\n", o.str().c_str());
  if (!json.empty()) {
    std::ofstream f(json, std::ios::app);
    f << o.str() << "\n";
  }
  if (hung) fprintf(stderr, "dmac-cuda-run: %s: no completion within 10 s (hang)\n", label.c_str());
  if (smIters > 0 && !hung && (!sc.allResident || sc.occupied < (int)sc.times.size()))
    fprintf(stderr,
            "dmac-cuda-run: %s: full-SM check: %d of %zu runs completed while the kernel held every SM%s: the copies "
            "may have run on SMs\n",
            label.c_str(), sc.occupied, sc.times.size(), sc.allResident ? "" : " (not every block was resident)");
  bool smBad = smIters > 0 && !hung && (sc.hung || sc.wrong);
  return hung || wrong || smBad ? 1 : 0;
}
