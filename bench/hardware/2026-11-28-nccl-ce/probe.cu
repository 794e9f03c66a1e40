// What makes a 4-GPU all-gather's copies fast on NVSwitch: one process drives the 4 GPUs, each
// GPU's 3 peer copies of one chunk (a quarter of the rank's buffer) run on one stream, every GPU's
// stream released by one trigger, and the same bytes are moved in several ways:
//   alloc  cudaMalloc, or the driver's virtual memory API (cuMemCreate + cuMemMap, as NCCL's
//          ncclMemAlloc and nccl-tests -R 2 use)
//   dir    push (each GPU writes its chunk into the peers, the dmac examples' shape) or pull
//          (each GPU reads the peers' chunks into its own buffer)
//   api    one cudaMemcpyBatchAsync (srcAccessOrder stream, as dmac_runtime), the same with
//          srcAccessOrder any, with cudaMemcpyFlagPreferOverlapWithCompute, or 3 cudaMemcpyAsync
//   order  rotated (step k: rank r -> r + k; no receiver has two writers) or ascending
// Time of a run: the slowest GPU's CUDA-event time from its release to its last copy's end. Every
// configuration's last run is checked byte for byte on the GPU (a kernel counts wrong words).
//   probe CHUNK_BYTES [REPS]      one line per configuration: median, min, max (us), wrong words
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../../runtime/cuda/pattern.h"

#define CK(x) check((x), #x, __LINE__)
#define CKD(x) checkDrv((x), #x, __LINE__)
static void check(cudaError_t e, const char* what, int line) {
  if (e != cudaSuccess) { fprintf(stderr, "line %d: %s: %s\n", line, what, cudaGetErrorString(e)); exit(1); }
}
static void checkDrv(CUresult e, const char* what, int line) {
  if (e != CUDA_SUCCESS) { const char* s; cuGetErrorString(e, &s); fprintf(stderr, "line %d: %s: %s\n", line, what, s); exit(1); }
}

static int G = 4;  // the machine's GPU count (main)

__global__ void fill(uint32_t* out, uint64_t words, uint32_t place) {
  for (uint64_t w = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += (uint64_t)gridDim.x * blockDim.x)
    out[w] = pattern_word(0, place, (uint32_t)w);
}
__global__ void count_wrong(const uint32_t* in, uint64_t words, uint32_t place, unsigned long long* wrong) {
  unsigned long long n = 0;
  for (uint64_t w = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += (uint64_t)gridDim.x * blockDim.x)
    n += in[w] != pattern_word(0, place, (uint32_t)w);
  if (n) atomicAdd(wrong, n);
}

struct Alloc { uint8_t* ptr; bool vmm; size_t size; CUmemGenericAllocationHandle h; };

static Alloc alloc_vmm(int dev, size_t size) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t gran = 0;
  CKD(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  size = (size + gran - 1) / gran * gran;
  Alloc a{nullptr, true, size, 0};
  CKD(cuMemCreate(&a.h, size, &prop, 0));
  CUdeviceptr p;
  CKD(cuMemAddressReserve(&p, size, gran, 0, 0));
  CKD(cuMemMap(p, size, 0, a.h, 0));
  std::vector<CUmemAccessDesc> acc(G);
  for (int d = 0; d < G; d++) {
    acc[d].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc[d].location.id = d;
    acc[d].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }
  CKD(cuMemSetAccess(p, size, acc.data(), G));
  a.ptr = (uint8_t*)p;
  return a;
}
static void release(Alloc& a) {
  if (!a.vmm) { CK(cudaFree(a.ptr)); return; }
  CKD(cuMemUnmap((CUdeviceptr)a.ptr, a.size));
  CKD(cuMemAddressFree((CUdeviceptr)a.ptr, a.size));
  CKD(cuMemRelease(a.h));
}

// api: 0 batch, 1 batch any, 2 batch overlap, 3 async. sync: a barrier among the GPUs after each
// segment (each step, or each piece of a step): every GPU writes a word on each peer from its
// stream and waits for the peers' words, as NCCL's copy-engine collectives' ready-sync does.
// host: the trigger and completion words in pinned host memory, the run timed on the host from
// the trigger store to the last completion word seen, as dmac-cuda-run and dmac_runtime do.
// h2d: each buffer reset before a run by cudaMemcpy from a pinned, mapped host copy of its contents
// (as dmac-cuda-run resets), not by memset and a fill kernel.
struct Config { bool vmm, pull, ascending; int api; bool sync; int pieces; bool host = false; bool h2d = false; };
static const char* API[] = {"batch", "batch-any", "batch-overlap", "async"};
// vmm pull ascending api sync pieces
static const Config CONFIGS[] = {
    {false, false, false, 0, false, 1}, {true, false, false, 0, false, 1}, {false, true, false, 0, false, 1},
    {false, false, false, 3, false, 1}, {false, false, false, 1, false, 1}, {false, false, false, 2, false, 1},
    {false, false, true, 0, false, 1},  {false, false, false, 0, true, 1},  {false, false, false, 3, true, 1},
    {false, false, false, 0, true, 4},  {false, false, false, 0, false, 4}, {false, false, true, 0, true, 1},
    {true, false, false, 0, true, 1},   {false, false, false, 0, true, 16},
};
// `probe CHUNK REPS host`: the runner's way of starting and timing against the probe's
static const Config HOST_CONFIGS[] = {
    {false, false, false, 0, false, 1, false}, {false, false, false, 0, false, 1, true},
    {false, false, false, 0, false, 4, false}, {false, false, false, 0, false, 4, true},
    {false, false, false, 3, false, 1, true},
};
// `probe CHUNK REPS reset`: the runner's reset against the probe's
static const Config RESET_CONFIGS[] = {
    {false, false, false, 0, false, 1, true, false}, {false, false, false, 0, false, 1, true, true},
    {false, false, false, 0, false, 1, true, false}, {false, false, false, 0, false, 1, true, true},
};

typedef CUresult (*ValueFn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

static ValueFn waitValue, writeValue;

/** One segment's copies on stream S, by C's API. */
static void submit(const Config& c, int d, std::vector<void*> dst, std::vector<void*> src, size_t bytes, cudaStream_t s) {
  (void)d;
  std::vector<size_t> sz(dst.size(), bytes);
  if (c.api == 3) {
    for (size_t i = 0; i < dst.size(); i++) CK(cudaMemcpyAsync(dst[i], src[i], sz[i], cudaMemcpyDefault, s));
    return;
  }
  std::vector<cudaMemcpyAttributes> at(dst.size());
  std::vector<size_t> idx(dst.size());
  for (size_t i = 0; i < dst.size(); i++) {
    memset(&at[i], 0, sizeof at[i]);
    at[i].srcAccessOrder = c.api == 1 ? cudaMemcpySrcAccessOrderAny : cudaMemcpySrcAccessOrderStream;
    at[i].flags = c.api == 2 ? cudaMemcpyFlagPreferOverlapWithCompute : 0;
    at[i].srcLocHint.type = cudaMemLocationTypeDevice;
    at[i].dstLocHint.type = cudaMemLocationTypeDevice;
    cudaPointerAttributes pa;
    CK(cudaPointerGetAttributes(&pa, src[i]));
    at[i].srcLocHint.id = pa.device;
    CK(cudaPointerGetAttributes(&pa, dst[i]));
    at[i].dstLocHint.id = pa.device;
    idx[i] = i;
  }
  CK(cudaMemcpyBatchAsync(dst.data(), (const void**)src.data(), sz.data(), dst.size(), at.data(), idx.data(), at.size(), s));
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: probe CHUNK_BYTES [REPS]\n"); return 2; }
  const size_t chunk = strtoull(argv[1], nullptr, 0), size = chunk * G;
  const int reps = argc > 2 ? atoi(argv[2]) : 8, warm = 2;
  const bool hostSet = argc > 3 && std::string(argv[3]) == "host";
  std::vector<Config> configs(std::begin(CONFIGS), std::end(CONFIGS));
  if (hostSet) configs.assign(std::begin(HOST_CONFIGS), std::end(HOST_CONFIGS));
  if (argc > 3 && std::string(argv[3]) == "reset") configs.assign(std::begin(RESET_CONFIGS), std::end(RESET_CONFIGS));
  CKD(cuInit(0));
  CK(cudaGetDeviceCount(&G));
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", (void**)&waitValue, 12000, cudaEnableDefault, &q));
  CK(cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", (void**)&writeValue, 12000, cudaEnableDefault, &q));
  std::vector<cudaStream_t> s(G);
  std::vector<uint32_t*> word(G);
  std::vector<unsigned long long*> wrong(G);
  for (int d = 0; d < G; d++) {
    CK(cudaSetDevice(d));
    for (int e = 0; e < G; e++)
      if (e != d) { cudaError_t r = cudaDeviceEnablePeerAccess(e, 0); if (r != cudaErrorPeerAccessAlreadyEnabled) CK(r); }
    CK(cudaStreamCreateWithFlags(&s[d], cudaStreamNonBlocking));
    CK(cudaMalloc((void**)&word[d], 64 * (G + 1)));
    CK(cudaMemset(word[d], 0, 64 * (G + 1)));
    CK(cudaMalloc((void**)&wrong[d], sizeof(unsigned long long)));
  }
  CK(cudaSetDevice(0));
  cudaStream_t trig;
  CK(cudaStreamCreateWithFlags(&trig, cudaStreamNonBlocking));
  volatile uint32_t* hw;  // host words: [0] trigger, [16 * (1 + d)] GPU d's completion
  CK(cudaHostAlloc((void**)&hw, 64 * (G + 1), cudaHostAllocPortable | cudaHostAllocMapped));
  memset((void*)hw, 0, 64 * (G + 1));
  uint32_t* hwDev;
  CK(cudaHostGetDevicePointer((void**)&hwDev, (void*)hw, 0));
  uint32_t gen = 0, barrier = 0;  // words only grow: barrier values follow the trigger's

  for (const Config& c : configs) {
    std::vector<Alloc> buf(G);
    for (int d = 0; d < G; d++) {
      CK(cudaSetDevice(d));
      if (c.vmm) buf[d] = alloc_vmm(d, size);
      else { buf[d] = Alloc{nullptr, false, size, 0}; CK(cudaMalloc((void**)&buf[d].ptr, size)); }
    }
    std::vector<uint8_t*> image(G, nullptr);  // h2d: each buffer's contents, pinned and mapped
    for (int d = 0; d < G && c.h2d; d++) {
      CK(cudaSetDevice(d));
      CK(cudaHostAlloc((void**)&image[d], size, cudaHostAllocPortable | cudaHostAllocMapped));
      CK(cudaMemset(buf[d].ptr, 0, size));
      fill<<<1024, 256>>>((uint32_t*)(buf[d].ptr + d * chunk), chunk / 4, d);
      CK(cudaMemcpy(image[d], buf[d].ptr, size, cudaMemcpyDeviceToHost));
    }
    std::vector<double> times, hostTimes;
    unsigned long long bad = 0;
    for (int it = 0; it < warm + reps; it++) {
      std::vector<cudaEvent_t> a(G), b(G);
      for (int d = 0; d < G; d++) {  // each rank's own chunk holds its pattern, the rest zero
        CK(cudaSetDevice(d));
        if (c.h2d) {
          CK(cudaMemcpy(buf[d].ptr, image[d], size, cudaMemcpyHostToDevice));
        } else {
          CK(cudaMemset(buf[d].ptr, 0, size));
          fill<<<1024, 256>>>((uint32_t*)(buf[d].ptr + d * chunk), chunk / 4, d);
        }
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
      }
      gen++;
      for (int d = 0; d < G; d++) {
        CK(cudaSetDevice(d));
        CK(cudaEventCreate(&a[d]));
        CK(cudaEventCreate(&b[d]));
        CKD(waitValue((CUstream)s[d], (CUdeviceptr)(c.host ? hwDev : word[d]), gen, CU_STREAM_WAIT_VALUE_EQ));
        CK(cudaEventRecord(a[d], s[d]));
        std::vector<void*> dst, src;
        for (int k = 1; k < G; k++) {
          // push: d writes its chunk into peer p; pull: d reads peer p's chunk into its own buffer
          int p = c.ascending ? (k - 1 < d ? k - 1 : k) : c.pull ? (d - k + G) % G : (d + k) % G;
          int owner = c.pull ? p : d;
          for (int j = 0; j < c.pieces; j++) {
            size_t off = owner * chunk + j * (chunk / c.pieces);
            dst.push_back((c.pull ? buf[d].ptr : buf[p].ptr) + off);
            src.push_back((c.pull ? buf[p].ptr : buf[d].ptr) + off);
          }
        }
        size_t per = c.sync ? 1 : dst.size();  // copies between barriers
        uint32_t bar = barrier;
        for (size_t i = 0; i < dst.size(); i += per) {
          submit(c, d, std::vector<void*>(dst.begin() + i, dst.begin() + i + per),
                 std::vector<void*>(src.begin() + i, src.begin() + i + per), chunk / c.pieces, s[d]);
          if (!c.sync || i + per == dst.size()) continue;
          bar++;
          for (int e = 0; e < G; e++)
            if (e != d) CKD(writeValue((CUstream)s[d], (CUdeviceptr)((uint8_t*)word[e] + 64 * (d + 1)), bar, CU_STREAM_WRITE_VALUE_DEFAULT));
          for (int e = 0; e < G; e++)
            if (e != d) CKD(waitValue((CUstream)s[d], (CUdeviceptr)((uint8_t*)word[d] + 64 * (e + 1)), bar, CU_STREAM_WAIT_VALUE_GEQ));
        }
        if (d == G - 1) barrier = bar;
        CK(cudaEventRecord(b[d], s[d]));
        if (c.host) CKD(writeValue((CUstream)s[d], (CUdeviceptr)(hwDev + 16 * (1 + d)), gen, CU_STREAM_WRITE_VALUE_DEFAULT));
      }
      CK(cudaSetDevice(0));
      if (c.host) {
        auto t0 = std::chrono::steady_clock::now();
        hw[0] = gen;
        for (int d = 0; d < G; d++)
          while (hw[16 * (1 + d)] != gen) {}
        if (it >= warm) hostTimes.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      } else {
        for (int d = 0; d < G; d++) CKD(writeValue((CUstream)trig, (CUdeviceptr)word[d], gen, CU_STREAM_WRITE_VALUE_DEFAULT));
      }
      double worst = 0;
      for (int d = 0; d < G; d++) {
        CK(cudaSetDevice(d));
        CK(cudaEventSynchronize(b[d]));
        float ms;
        CK(cudaEventElapsedTime(&ms, a[d], b[d]));
        worst = std::max(worst, ms * 1e3);
        CK(cudaEventDestroy(a[d]));
        CK(cudaEventDestroy(b[d]));
      }
      if (it >= warm) times.push_back(worst);
    }
    for (int d = 0; d < G; d++) {  // the last run's gathered buffer on every GPU
      CK(cudaSetDevice(d));
      for (int r = 0; r < G; r++) {
        CK(cudaMemset(wrong[d], 0, sizeof(unsigned long long)));
        count_wrong<<<1024, 256>>>((const uint32_t*)(buf[d].ptr + r * chunk), chunk / 4, r, wrong[d]);
        unsigned long long n;
        CK(cudaMemcpy(&n, wrong[d], sizeof n, cudaMemcpyDeviceToHost));
        bad += n;
      }
    }
    std::sort(times.begin(), times.end());
    std::sort(hostTimes.begin(), hostTimes.end());
    printf("%-6s %-4s %-9s %-13s %-7s %-20s pieces %-2d chunk %zu: median %.1f min %.1f max %.1f us, wrong words %llu\n", c.vmm ? "vmm" : "malloc",
           c.pull ? "pull" : "push", c.ascending ? "ascending" : "rotated", API[c.api], c.sync ? "sync" : "no-sync", c.host ? (c.h2d ? "host-words,h2d-reset" : "host-words") : "gpu-words", c.pieces, chunk, times[times.size() / 2],
           times.front(), times.back(), bad);
    if (c.host) printf("       the same runs timed on the host (trigger store to last completion word): median %.1f min %.1f max %.1f us\n", hostTimes[hostTimes.size() / 2], hostTimes.front(), hostTimes.back());
    fflush(stdout);
    for (int d = 0; d < G; d++) { CK(cudaSetDevice(d)); release(buf[d]); if (image[d]) CK(cudaFreeHost(image[d])); }
  }
  return 0;
}
