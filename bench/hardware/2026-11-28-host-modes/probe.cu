// Why a runner process is fast or slow for everything it runs (bench/hardware/2026-11-28-pinning):
// one process measures
//   submit  the host time of 12 cudaMemcpyAsync peer copies of 1 KiB (3 per GPU, one stream per GPU,
//           rotated destinations) until the calls return ("api") and until the host has seen every
//           copy finish through a completion word each GPU writes to pinned host memory ("done");
//   ping    for each of ALLOCS separate pinned, mapped host allocations (2 MiB each) and each GPU: the
//           round trip host store -> GPU kernel sees it -> GPU store -> host sees it.
// If the pinned memory's place (the VM hides the host's sockets) decides the modes, the ping times
// differ between allocations of one process; if something per process does, they move together.
// It also reports the process's CPU time per iteration of the submit loop, user and system (getrusage):
// the system share says whether a slow process's calls enter the kernel.
//   probe [ITERS] [ALLOCS]     one line: api done (median us), user sys (us per iteration), then ping
//                              per allocation x GPU
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <sys/resource.h>

#define CK(x) check((x), #x, __LINE__)
static void check(cudaError_t e, const char* what, int line) {
  if (e != cudaSuccess) { fprintf(stderr, "line %d: %s: %s\n", line, what, cudaGetErrorString(e)); exit(1); }
}
using clk = std::chrono::steady_clock;
static double us_since(clk::time_point t0) { return std::chrono::duration<double, std::micro>(clk::now() - t0).count(); }
static double median(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

/** Answers `iters` pings: waits for flag == i, then writes ack = i (both in mapped host memory). */
__global__ void pong(volatile uint32_t* flag, volatile uint32_t* ack, uint32_t iters) {
  for (uint32_t i = 1; i <= iters; i++) {
    while (*flag != i) {}
    *ack = i;
    __threadfence_system();
  }
}

int main(int argc, char** argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 200;
  const int allocs = argc > 2 ? atoi(argv[2]) : 6;
  const int G = 4, CH = 1024;
  std::vector<cudaStream_t> s(G);
  std::vector<char*> buf(G);
  volatile uint32_t* words;  // one completion word per GPU
  CK(cudaHostAlloc((void**)&words, 4096, cudaHostAllocMapped));
  for (int g = 0; g < G; g++) {
    CK(cudaSetDevice(g));
    for (int p = 0; p < G; p++) if (p != g) CK(cudaDeviceEnablePeerAccess(p, 0));
    CK(cudaStreamCreateWithFlags(&s[g], cudaStreamNonBlocking));
    CK(cudaMalloc(&buf[g], G * CH));
  }
  std::vector<double> api, done;
  rusage r0, r1;
  for (int it = 0; it < iters + 10; it++) {
    if (it == 10) getrusage(RUSAGE_SELF, &r0);
        auto t0 = clk::now();
    for (int g = 0; g < G; g++) {
      CK(cudaSetDevice(g));
      for (int k = 1; k < G; k++) {
        int p = (g + k) % G;
        CK(cudaMemcpyAsync(buf[p] + g * CH, buf[g] + g * CH, CH, cudaMemcpyDeviceToDevice, s[g]));
      }
      uint32_t* dw;
      CK(cudaHostGetDevicePointer((void**)&dw, (void*)(words + g), 0));
      if (cuStreamWriteValue32(s[g], (CUdeviceptr)dw, (cuuint32_t)(it + 1), CU_STREAM_WRITE_VALUE_DEFAULT) != CUDA_SUCCESS) {
        fprintf(stderr, "cuStreamWriteValue32 failed\n");
        return 2;
      }
    }
    double a = us_since(t0);
    for (int g = 0; g < G; g++) while (words[g] != (uint32_t)(it + 1)) {}
    double d = us_since(t0);
    for (int g = 0; g < G; g++) { CK(cudaSetDevice(g)); CK(cudaStreamSynchronize(s[g])); }
    if (it >= 10) { api.push_back(a); done.push_back(d); }
  }
  getrusage(RUSAGE_SELF, &r1);
  auto cpu_us = [](const timeval& a, const timeval& b) { return (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_usec - a.tv_usec); };
  // CPU time per iteration of the loop above, in user and in system mode (the kernel's share
  // shows whether a slow process's driver calls go through system calls).
  printf("api %.1f done %.1f user %.1f sys %.1f ping", median(api), median(done),
         cpu_us(r0.ru_utime, r1.ru_utime) / iters, cpu_us(r0.ru_stime, r1.ru_stime) / iters);
  for (int a = 0; a < allocs; a++) {
    uint32_t* mem;
    CK(cudaHostAlloc((void**)&mem, 2 << 20, cudaHostAllocMapped));
    volatile uint32_t* flag = mem;
    volatile uint32_t* ack = mem + 16;
    for (int g = 0; g < G; g++) {
      *flag = 0, *ack = 0;
      CK(cudaSetDevice(g));
      uint32_t *dflag, *dack;
      CK(cudaHostGetDevicePointer((void**)&dflag, (void*)flag, 0));
      CK(cudaHostGetDevicePointer((void**)&dack, (void*)ack, 0));
      pong<<<1, 1, 0, s[g]>>>(dflag, dack, iters);
      std::vector<double> rt;
      for (uint32_t i = 1; i <= (uint32_t)iters; i++) {
        auto t0 = clk::now();
        *flag = i;
        while (*ack != i) {}
        rt.push_back(us_since(t0));
      }
      CK(cudaStreamSynchronize(s[g]));
      printf(" %.2f", median(rt));
    }
    printf(" |");
  }
  printf("\n");
  return 0;
}
