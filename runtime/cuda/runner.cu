// dmac-cuda-run: runs one dmac CUDA command program (program.txt, the line format of
// src/backend/cuda/text.ts; docs/cuda.md) on real GPUs, times it as AMD-DMA-Latte times
// (host steady_clock from the first submit, or from the trigger store when prelaunched, until the
// host sees the last completion word, spin-polling pinned host-mapped memory), and verifies every
// byte of every buffer against the compiler's expectation, on the GPU (byte-check.cuh).
//
//   dmac-cuda-run PROGRAM.txt [PROGRAM.txt ...] [--iters N] [--warmup N] [--label TEXT ...]
//                 [--json FILE] [--sm-check N] [--sm-limit-ms MS]
//
// Several programs run interleaved in one process (one iteration of each in turn), one record
// each; --label once per program, in the same order.
// --sm-check N: after the timed runs, N more (after one warm-up) while a kernel holds every SM of
// every GPU (the full-SM check below; its result is the run's "smCheck" object). The kernel ends
// at the latest after --sm-limit-ms (default 2000, at most 5000).
// One GPU per rank (device g for rank g); refuses when the machine has fewer. Exit 0: verified;
// 1: wrong bytes or a hang; 2: bad input or a CUDA error. A client of dmac_runtime (dmac_runtime.h):
// the library runs the program, the runner owns the buffers, the clock and the checks.

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "byte-check.cuh"
#include "dmac_runtime.h"
#include "pattern.h"
#include "program.h"

#define CK(x) check_rt((x), #x, __LINE__)
#define CKL(x) check_lib((x), #x)

static void check_rt(cudaError_t e, const char* what, int line) {
  if (e != cudaSuccess) {
    fprintf(stderr, "dmac-cuda-run: %s failed (line %d): %s\n", what, line, cudaGetErrorString(e));
    exit(2);
  }
}
static void check_lib(dmac_status s, const char* what) {
  if (s != DMAC_OK) {
    fprintf(stderr, "dmac-cuda-run: %s: %s\n", what, dmac_last_error());
    exit(2);
  }
}
[[noreturn]] static void bad(const std::string& why) {
  fprintf(stderr, "dmac-cuda-run: %s\n", why.c_str());
  exit(2);
}

// ---- the program's buffers ------------------------------------------------------------------
//
// The runner is a client of dmac_runtime (dmac_runtime.h): it allocates every buffer, fills it
// with its pattern, binds it, and lets the library make the streams, enqueue, trigger and wait.

static const int WORD_STRIDE = 16;  // the full-SM check's flags: one 64-byte line each

struct Buffer {
  const dmac::Buffer* b;
  uint8_t* ptr = nullptr;      // device memory, or pinned host memory
  uint8_t* pattern = nullptr;  // a host buffer's pinned copy of its initial pattern
};

struct Run {
  dmac_program* h = nullptr;
  const dmac::Program* p = nullptr;  // the library's parse
  std::vector<Buffer> buffers;
};

/** The device's address of pinned host memory (the same as the host's under unified addressing). */
static uint8_t* device_view(uint8_t* host) {
  void* d = nullptr;
  CK(cudaHostGetDevicePointer(&d, host, 0));
  return (uint8_t*)d;
}

static void setup(Run& r, const char* path) {
  CKL(dmac_load(path, &r.h));
  r.p = &r.h->prog;
  int have = 0;
  CK(cudaGetDeviceCount(&have));
  if (have < r.p->gpus) {
    fprintf(stderr, "dmac-cuda-run: the program needs %d GPUs (one per rank), this machine has %d\n", r.p->gpus, have);
    exit(2);
  }
  for (const dmac::Buffer& pb : r.p->buffers) {
    Buffer b{&pb};
    bool host = pb.place == dmac::HOST;
    if (host) {
      // Host buffers are reset from a pinned copy of their pattern, written by a kernel on GPU 0
      // through the mapping (byte-check.cuh): a CPU loop took seconds a GiB.
      CK(cudaHostAlloc((void**)&b.pattern, pb.size, cudaHostAllocPortable | cudaHostAllocMapped));
      CK(cudaSetDevice(0));
      CK(fill_pattern_on_gpu(device_view(b.pattern), pb.size, (uint32_t)pb.id, (uint32_t)pb.place));
      CK(cudaHostAlloc((void**)&b.ptr, pb.size, cudaHostAllocPortable | cudaHostAllocMapped));
    } else {
      CK(cudaSetDevice(pb.place));
      CK(cudaMalloc((void**)&b.ptr, pb.size));
    }
    CKL(dmac_bind(r.h, pb.name.c_str(), host ? DMAC_HOST : pb.place, b.ptr, pb.size));
    r.buffers.push_back(b);
  }
  CKL(dmac_prepare(r.h));
  CK(cudaSetDevice(0));
}

static void sync_all(Run& r) {
  for (int g = 0; g < r.p->gpus; g++) {
    CK(cudaSetDevice(g));
    CK(cudaDeviceSynchronize());
  }
}

/** Every buffer back to its pattern, every word to 0 (untimed, before each iteration). A device
 *  buffer gets its pattern from the fill kernel on its own GPU, as an application's kernels write
 *  their buffers: reset by cudaMemcpy from pinned host memory instead, the next run's peer copies
 *  of a 1 GiB all-gather took 2165 us where they take 2066-2072 after a kernel's writes (4x H200,
 *  bench/hardware/2026-11-28-nccl-ce, probe.cu `reset`). */
static void reset(Run& r) {
  for (Buffer& b : r.buffers) {
    if (b.b->place == dmac::HOST) memcpy(b.ptr, b.pattern, b.b->size);
    else {
      CK(cudaSetDevice(b.b->place));
      CK(fill_pattern_on_gpu(b.ptr, b.b->size, (uint32_t)b.b->id, (uint32_t)b.b->place));
    }
  }
  CKL(dmac_reset_host(r.h));
  sync_all(r);
}

// ---- one run --------------------------------------------------------------------------------

/** The timed part of one run: microseconds until the last completion word is seen, or a negative
 *  number on a hang (10 s without progress). Leaves the GPUs unsynchronised: the full-SM check
 *  must look at its kernel before anything waits for the devices. */
static double run_copies(Run& r) {
  using clk = std::chrono::steady_clock;
  clk::time_point t0;
  if (r.p->hasTrigger) {  // prelaunch: enqueued before the clock starts
    CKL(dmac_enqueue(r.h));
    t0 = clk::now();
    CKL(dmac_trigger_host(r.h));
  } else {
    t0 = clk::now();
    CKL(dmac_enqueue(r.h));
    CKL(dmac_trigger_host(r.h));  // the external signals
  }
  dmac_status s = dmac_wait_host(r.h, 10.0);
  if (s == DMAC_ERR_TIMEOUT) return -1;
  CKL(s);
  return std::chrono::duration<double, std::micro>(clk::now() - t0).count();
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
  for (Buffer& buf : r.buffers) {
    const dmac::Buffer& b = *buf.b;
    std::vector<CheckRange> ranges = check_ranges(*r.p, b);
    CK(cudaSetDevice(b.place == dmac::HOST ? 0 : b.place));
    CheckResult res;
    uint8_t* data = b.place == dmac::HOST ? device_view(buf.ptr) : buf.ptr;
    CK(check_on_gpu(data, b.size, (uint32_t)b.id, (uint32_t)b.place, ranges, &res));
    if (res.wrong)
      fprintf(stderr, "dmac-cuda-run: %s@%s: %llu wrong bytes, the first at [%llu] is 0x%02x, expected 0x%02x\n",
              b.name.c_str(), b.place == dmac::HOST ? "host" : std::to_string(b.place).c_str(), res.wrong,
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
  sm_setup(c, r.p->gpus);
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

/** One program's record (schemas/cuda-results.schema.json's run), printed and appended to JSON. */
static std::string record(Run& r, const std::string& label, const std::vector<double>& times, int warmup,
                          bool hung, uint64_t wrong, int smIters, const SmCheck& sc) {
  double median = median_of(times);
  double fastest = times.empty() ? 0 : *std::min_element(times.begin(), times.end());
  uint64_t bytes = 0;
  for (const dmac::Stream& s : r.p->streams)
    for (const dmac::Cmd& c : s.cmds)
      for (const dmac::Copy& x : c.copies) bytes += x.bytes;
  std::ostringstream o;
  o << "{\"label\":\"" << label << "\",\"programSha256\":\"" << r.p->sha256 << "\",\"bytesMoved\":" << bytes
    << ",\"iterations\":" << times.size() << ",\"warmup\":" << warmup << ",\"medianUs\":" << median << ",\"minUs\":" << fastest
    << ",\"verified\":" << (!hung && wrong == 0 ? "true" : "false") << ",\"wrongBytes\":" << wrong
    << ",\"hung\":" << (hung ? "true" : "false") << ",\"timesUs\":[";
  for (size_t i = 0; i < times.size(); i++) o << (i ? "," : "") << times[i];
  o << "]";
  if (smIters > 0 && !hung) o << ",\"smCheck\":" << sm_json(sc, median);
  o << "}";
  return o.str();
}

static const char* USAGE =
    "usage: dmac-cuda-run PROGRAM.txt [PROGRAM.txt ...] [--iters N] [--warmup N] [--label TEXT ...] [--json FILE]"
    " [--sm-check N] [--sm-limit-ms MS]";

int main(int argc, char** argv) {
  int iters = 20, warmup = 3, smIters = 0;
  double smLimitMs = 2000;
  std::vector<std::string> paths, labels;
  std::string json;
  for (int i = 1; i < argc; i++) {
    std::string k = argv[i];
    if (k.rfind("--", 0) != 0) {
      paths.push_back(k);
      continue;
    }
    if (i + 1 >= argc) bad("option " + k + " needs a value");
    std::string v = argv[++i];
    if (k == "--iters") iters = std::atoi(v.c_str());
    else if (k == "--warmup") warmup = std::atoi(v.c_str());
    else if (k == "--label") labels.push_back(v);
    else if (k == "--json") json = v;
    else if (k == "--sm-check") smIters = std::atoi(v.c_str());
    else if (k == "--sm-limit-ms") smLimitMs = std::atof(v.c_str());
    else bad("unknown option " + k);
  }
  if (paths.empty()) bad(USAGE);
  if (labels.empty()) labels = paths;
  if (labels.size() != paths.size()) bad("give one --label per program");
  if (smIters > 0 && paths.size() > 1) bad("--sm-check runs one program at a time");
  // The hang detector gives up after 10 s: the kernel must end well before, whatever waits for it.
  if (smLimitMs < 1 || smLimitMs > 5000) bad("--sm-limit-ms must be from 1 to 5000");
  // Several programs run interleaved, one iteration of each in turn (each iteration starting one
  // program later), so that they are compared in the same process and minutes: the same program's
  // median differs by 1.2-1.6x from one runner process to the next at <= 1 MiB
  // (bench/hardware/2026-11-28-h100x2-host), more than the variants differ.
  const size_t n = paths.size();
  std::vector<Run> runs(n);
  for (size_t j = 0; j < n; j++) setup(runs[j], paths[j].c_str());
  std::vector<std::vector<double>> times(n);
  std::vector<char> hung(n, 0);
  bool stop = false;
  for (int i = 0; i < warmup + iters && !stop; i++)
    for (size_t k = 0; k < n && !stop; k++) {
      size_t j = (i + k) % n;
      reset(runs[j]);
      double us = run_once(runs[j]);
      if (us < 0) hung[j] = stop = true;  // its copies still wait: nothing after them would mean anything
      else if (i >= warmup) times[j].push_back(us);
    }
  bool failed = false;
  for (size_t j = 0; j < n; j++) {
    Run& r = runs[j];
    uint64_t wrong = hung[j] ? 0 : verify(r);
    SmCheck sc;
    sc.limitMs = smLimitMs;
    if (smIters > 0 && !hung[j]) sm_check(r, sc, smIters);
    std::string line = record(r, labels[j], times[j], warmup, hung[j], wrong, smIters, sc);
    printf("%s\n", line.c_str());
    if (!json.empty()) {
      std::ofstream f(json, std::ios::app);
      f << line << "\n";
    }
    const char* label = labels[j].c_str();
    if (hung[j]) fprintf(stderr, "dmac-cuda-run: %s: no completion within 10 s (hang)\n", label);
    if (smIters > 0 && !hung[j] && (!sc.allResident || sc.occupied < (int)sc.times.size()))
      fprintf(stderr,
              "dmac-cuda-run: %s: full-SM check: %d of %zu runs completed while the kernel held every SM%s: the "
              "copies may have run on SMs\n",
              label, sc.occupied, sc.times.size(), sc.allResident ? "" : " (not every block was resident)");
    failed |= hung[j] || wrong || (smIters > 0 && !hung[j] && (sc.hung || sc.wrong));
  }
  return failed ? 1 : 0;
}
