// The GPU half of dmac_runtime (dmac_runtime.h): streams, words, enqueueing, trigger, wait, reset.
// The host half (program.cc) parsed the program and holds the caller's bindings.
//
// Words (trigger, user signals, sync, completion) live in pinned host memory mapped into every
// GPU, one 64-byte line each so each is polled on its own; the program's streams wait on them
// with cuStreamWaitValue32 and write them with cuStreamWriteValue32, as do the caller's streams
// in dmac_trigger / dmac_wait and the library's own stream (joins and resets). Ordering between
// streams of different GPUs is CUDA events. The driver functions come through the runtime's
// cudaGetDriverEntryPointByVersion, so the library links only the CUDA runtime (no libcuda at
// build time: the build machine needs no driver).

#include <cuda.h>
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "program.h"

using dmac::fail;

namespace {

const int WORD_STRIDE = 16;  // uint32 words per line

typedef CUresult (*StreamValueFn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

/** A command's arguments, resolved once at dmac_prepare (never in the timed submission). */
struct Resolved {
  std::vector<void*> dsts;
  std::vector<const void*> srcs;
  std::vector<size_t> sizes, attrIdx;
  std::vector<cudaMemcpyAttributes> attrs;
};

struct GpuStream {
  int device = 0;
  cudaStream_t s = nullptr;
  cudaEvent_t done = nullptr;  // recorded by dmac_reset after the program's commands
  std::vector<Resolved> cmds;
};

struct Gpu {
  volatile uint32_t* words = nullptr;
  CUdeviceptr wordsDev = 0;
  std::vector<GpuStream> streams;  // parallel to prog.streams
  // The library's own stream (on rank 0's device): it joins several callers' streams before a
  // trigger, and orders a reset after every program stream and every dmac_wait, so that no
  // caller's stream ever waits for another GPU.
  cudaStream_t own = nullptr;
  int ownDevice = 0;
  std::map<int, cudaEvent_t> deviceEvent;  // per device: a caller's work, for `own` to wait on
  std::vector<cudaEvent_t> waited;         // recorded after each dmac_wait, on its stream
  cudaEvent_t go = nullptr;         // on `own`: the callers' work is done (a program without a trigger)
  cudaEvent_t resetDone = nullptr;  // on `own`: the last dmac_reset's zeros
  bool resetPending = false, goPending = false;
  bool enqueued = false, started = false;
  StreamValueFn waitValue = nullptr, writeValue = nullptr;
};

Gpu* gpu_of(dmac_program* p) { return static_cast<Gpu*>(p->gpu); }

dmac_status cuda_fail(const char* what, cudaError_t e) {
  cudaGetLastError();  // a sticky error stays; a non-sticky one must not leak into the caller's next call
  return fail(DMAC_ERR_CUDA, std::string(what) + ": " + cudaGetErrorString(e));
}

dmac_status driver_fail(const char* what, CUresult e) {
  return fail(DMAC_ERR_CUDA, std::string(what) + ": CUDA driver error " + std::to_string((int)e));
}

#define TRY(x)                                       \
  do {                                               \
    cudaError_t e_ = (x);                            \
    if (e_ != cudaSuccess) return cuda_fail(#x, e_); \
  } while (0)
#define TRY_DRV(x)                                      \
  do {                                                  \
    CUresult e_ = (x);                                  \
    if (e_ != CUDA_SUCCESS) return driver_fail(#x, e_); \
  } while (0)
#define TRY_STATUS(x)                \
  do {                               \
    dmac_status s_ = (x);            \
    if (s_ != DMAC_OK) return s_;    \
  } while (0)

/** Restores the caller's current device: the library changes it, the caller must not notice. */
struct DeviceGuard {
  int saved = -1;
  DeviceGuard() {
    if (cudaGetDevice(&saved) != cudaSuccess) saved = -1;
  }
  ~DeviceGuard() {
    if (saved >= 0) cudaSetDevice(saved);
  }
};

CUdeviceptr word_dev(const Gpu* g, int w) { return g->wordsDev + (CUdeviceptr)w * WORD_STRIDE * 4; }

void host_store(Gpu* g, int w, uint32_t v) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  g->words[w * WORD_STRIDE] = v;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

/** Peer access from every device of the program to every other (already enabled is fine). */
dmac_status enable_peers(const std::vector<int>& devices) {
  for (int a : devices) {
    TRY(cudaSetDevice(a));
    TRY(cudaFree(0));  // make the context
    for (int b : devices) {
      if (a == b) continue;
      int can = 0;
      TRY(cudaDeviceCanAccessPeer(&can, a, b));
      if (!can) continue;
      cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
      else TRY(e);
    }
  }
  return DMAC_OK;
}

/** Every binding is memory of the right kind on the right device. */
dmac_status check_memory(const dmac_program* p) {
  for (size_t i = 0; i < p->prog.buffers.size(); i++) {
    const dmac::Buffer& b = p->prog.buffers[i];
    cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, p->ptrs[i]);
    if (e != cudaSuccess) cudaGetLastError();
    bool host = b.place == dmac::HOST;
    std::string who = "buffer " + b.name + " of " + (host ? std::string("host") : "rank " + std::to_string(b.place));
    if (host && (e != cudaSuccess || a.type != cudaMemoryTypeHost))
      return fail(DMAC_ERR_MEMORY, who + " must be pinned host memory (cudaHostAlloc or cudaHostRegister)");
    if (!host && (e != cudaSuccess || a.type != cudaMemoryTypeDevice))
      return fail(DMAC_ERR_MEMORY, who + " must be device memory (cudaMalloc)");
    if (!host && a.device != p->device[b.place])
      return fail(DMAC_ERR_MEMORY, who + " is bound to memory of device " + std::to_string(a.device) +
                                       "; the rank runs on device " + std::to_string(p->device[b.place]));
  }
  return DMAC_OK;
}

cudaMemLocation location(const dmac_program* p, int place) {
  cudaMemLocation l;
  l.type = place == dmac::HOST ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
  l.id = place == dmac::HOST ? 0 : p->device[place];
  return l;
}

Resolved resolve(const dmac_program* p, const dmac::Cmd& c) {
  Resolved r;
  auto at = [&](const dmac::Loc& l) {
    return static_cast<uint8_t*>(p->ptrs[p->prog.find(l.buffer, l.place)]) + l.offset;
  };
  for (const dmac::Copy& x : c.copies) {
    r.dsts.push_back(at(x.dst));
    r.srcs.push_back(at(x.src));
    r.sizes.push_back(x.bytes);
    cudaMemcpyAttributes a;
    memset(&a, 0, sizeof a);
    a.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    a.srcLocHint = location(p, x.src.place);
    a.dstLocHint = location(p, x.dst.place);
    r.attrIdx.push_back(r.attrs.size());
    r.attrs.push_back(a);
  }
  return r;
}

void teardown(dmac_program* p) {
  Gpu* g = gpu_of(p);
  if (!g) return;
  DeviceGuard guard;
  // A prelaunched run that was never triggered cannot be cancelled: release it, so that its
  // streams end (it runs its copies into the bound buffers), at most 10 s.
  if (g->enqueued && !g->started && p->prog.hasTrigger) {
    dmac_trigger_host(p);
    dmac_wait_host(p, 10.0);
  }
  for (GpuStream& s : g->streams) {
    cudaSetDevice(s.device);
    if (s.s) cudaStreamSynchronize(s.s);
    if (s.s) cudaStreamDestroy(s.s);
    if (s.done) cudaEventDestroy(s.done);
  }
  cudaSetDevice(g->ownDevice);
  if (g->own) cudaStreamSynchronize(g->own);
  if (g->own) cudaStreamDestroy(g->own);
  for (auto& e : g->deviceEvent) cudaEventDestroy(e.second);
  for (cudaEvent_t e : g->waited) cudaEventDestroy(e);
  if (g->go) cudaEventDestroy(g->go);
  if (g->resetDone) cudaEventDestroy(g->resetDone);
  if (g->words) cudaFreeHost((void*)g->words);
  cudaGetLastError();
  delete g;
  p->gpu = nullptr;
}

/** The device of caller stream i: DEVICES[i] when given, else the stream's own (the legacy default
 *  stream, 0, is the caller's current device's: give DEVICES when several GPUs' default streams
 *  are meant, as PyTorch's are all 0). */
dmac_status caller_device(void* const* streams, const int* devices, int i, int current, int* out) {
  if (devices) *out = devices[i];
  else if (!streams[i]) *out = current;
  else TRY(cudaStreamGetDevice((cudaStream_t)streams[i], out));
  return DMAC_OK;
}

/** Records an event after the work on a caller's stream, in a new event kept in POOL. */
dmac_status record_after(cudaStream_t stream, int device, std::vector<cudaEvent_t>& pool) {
  TRY(cudaSetDevice(device));
  cudaEvent_t e;
  TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  pool.push_back(e);
  TRY(cudaEventRecord(e, stream));
  return DMAC_OK;
}

/** The library's stream waits for the work already on each caller stream. One event per device
 *  serves every stream of it: a wait captures the event's latest record when it is made. */
dmac_status join(Gpu* g, void* const* streams, const std::vector<int>& dev) {
  for (size_t i = 0; i < dev.size(); i++) {
    TRY(cudaSetDevice(dev[i]));
    cudaEvent_t& e = g->deviceEvent[dev[i]];
    if (!e) TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    TRY(cudaEventRecord(e, (cudaStream_t)streams[i]));
    TRY(cudaSetDevice(g->ownDevice));
    TRY(cudaStreamWaitEvent(g->own, e, 0));
  }
  return DMAC_OK;
}

/** Makes an event (on the library's device) that records where `own` is now. */
dmac_status mark_own(Gpu* g, cudaEvent_t& e) {
  TRY(cudaSetDevice(g->ownDevice));
  if (!e) TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  TRY(cudaEventRecord(e, g->own));
  return DMAC_OK;
}

dmac_status submit(Gpu* g, GpuStream& s, const dmac::Cmd& c, Resolved& r) {
  switch (c.op) {
    case dmac::Op::Copy:
      TRY(cudaMemcpyAsync(r.dsts[0], r.srcs[0], r.sizes[0], cudaMemcpyDefault, s.s));
      break;
    case dmac::Op::Batch:
#if CUDART_VERSION >= 13000
      TRY(cudaMemcpyBatchAsync(r.dsts.data(), r.srcs.data(), r.sizes.data(), r.sizes.size(), r.attrs.data(),
                               r.attrIdx.data(), r.attrs.size(), s.s));
#else
    {
      size_t failIdx = 0;
      TRY(cudaMemcpyBatchAsync(r.dsts.data(), (void**)r.srcs.data(), r.sizes.data(), r.sizes.size(), r.attrs.data(),
                               r.attrIdx.data(), r.attrs.size(), &failIdx, s.s));
    }
#endif
      break;
    case dmac::Op::Wait:
      TRY_DRV(g->waitValue((CUstream)s.s, word_dev(g, c.word), c.value,
                           c.eq ? CU_STREAM_WAIT_VALUE_EQ : CU_STREAM_WAIT_VALUE_GEQ));
      break;
    case dmac::Op::Write:
      TRY_DRV(g->writeValue((CUstream)s.s, word_dev(g, c.word), c.value, CU_STREAM_WRITE_VALUE_DEFAULT));
      break;
    case dmac::Op::Timestamp:
      break;  // the caller times the run
  }
  return DMAC_OK;
}

dmac_status need_streams(void* const* streams, int n, const char* who) {
  if (!streams || n < 1) return fail(DMAC_ERR_ARGUMENT, std::string(who) + ": give at least one stream");
  return DMAC_OK;
}

}  // namespace

extern "C" {

dmac_status dmac_prepare(dmac_program* p) {
  if (!p) return fail(DMAC_ERR_ARGUMENT, "dmac_prepare: null program");
  if (p->gpu) return fail(DMAC_ERR_STATE, "dmac_prepare: already prepared");
  TRY_STATUS(dmac_check_bindings(p));
  DeviceGuard guard;
  int have = 0;
  TRY(cudaGetDeviceCount(&have));
  std::vector<int> devices;
  for (int d : p->device) {
    if (d >= have)
      return fail(DMAC_ERR_RANK, "the program needs CUDA device " + std::to_string(d) + "; this machine has " +
                                     std::to_string(have));
    devices.push_back(d);
  }
  TRY_STATUS(enable_peers(devices));
  TRY_STATUS(check_memory(p));
  Gpu* g = new Gpu();
  p->gpu = g;
  p->teardown = teardown;
  dmac_status s = [&]() -> dmac_status {
    cudaDriverEntryPointQueryResult q;
    TRY(cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", (void**)&g->waitValue, 12000, cudaEnableDefault, &q));
    TRY(cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", (void**)&g->writeValue, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !g->waitValue || !g->writeValue)
      return fail(DMAC_ERR_CUDA, "the driver has no stream memory operations (cuStreamWaitValue32, cuStreamWriteValue32)");
    void* w = nullptr;
    size_t bytes = (size_t)std::max(1, p->prog.words) * WORD_STRIDE * 4;
    TRY(cudaHostAlloc(&w, bytes, cudaHostAllocPortable | cudaHostAllocMapped));
    memset(w, 0, bytes);
    g->words = (volatile uint32_t*)w;
    void* wd = nullptr;
    TRY(cudaHostGetDevicePointer(&wd, w, 0));
    g->wordsDev = (CUdeviceptr)wd;
    g->ownDevice = p->device[0];
    TRY(cudaSetDevice(g->ownDevice));
    TRY(cudaStreamCreateWithFlags(&g->own, cudaStreamNonBlocking));
    for (const dmac::Stream& ps : p->prog.streams) {
      g->streams.emplace_back();
      GpuStream& s = g->streams.back();
      s.device = p->device[ps.gpu];
      TRY(cudaSetDevice(s.device));
      TRY(cudaStreamCreateWithFlags(&s.s, cudaStreamNonBlocking));
      TRY(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
      for (const dmac::Cmd& c : ps.cmds) s.cmds.push_back(resolve(p, c));
    }
    return DMAC_OK;
  }();
  if (s != DMAC_OK) {
    std::string why = dmac_last_error();
    teardown(p);
    p->teardown = nullptr;
    return fail(s, why);
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return DMAC_OK;
}

dmac_status dmac_enqueue(dmac_program* p) {
  if (!p || !p->gpu) return fail(DMAC_ERR_STATE, "dmac_enqueue: dmac_prepare first");
  Gpu* g = gpu_of(p);
  if (g->enqueued) return fail(DMAC_ERR_STATE, "dmac_enqueue: already enqueued (dmac_reset after each run)");
  DeviceGuard guard;
  for (size_t i = 0; i < g->streams.size(); i++) {
    GpuStream& s = g->streams[i];
    TRY(cudaSetDevice(s.device));
    if (g->resetPending) TRY(cudaStreamWaitEvent(s.s, g->resetDone, 0));
    if (g->goPending) TRY(cudaStreamWaitEvent(s.s, g->go, 0));
    const dmac::Stream& ps = p->prog.streams[i];
    for (size_t k = 0; k < ps.cmds.size(); k++) TRY_STATUS(submit(g, s, ps.cmds[k], s.cmds[k]));
  }
  g->resetPending = g->goPending = false;
  g->enqueued = true;
  if (!p->prog.hasTrigger) g->started = true;
  return DMAC_OK;
}

dmac_status dmac_trigger(dmac_program* p, void* const* streams, const int* devices, int n) {
  if (!p || !p->gpu) return fail(DMAC_ERR_STATE, "dmac_trigger: dmac_prepare first");
  TRY_STATUS(need_streams(streams, n, "dmac_trigger"));
  Gpu* g = gpu_of(p);
  if (g->started) return fail(DMAC_ERR_STATE, "dmac_trigger: this run has started (dmac_reset after each run)");
  DeviceGuard guard;
  std::vector<int> dev(n);
  for (int i = 0; i < n; i++) TRY_STATUS(caller_device(streams, devices, i, guard.saved, &dev[i]));
  if (!p->prog.hasTrigger) {  // the program's streams wait for the callers' work, then run
    TRY_STATUS(join(g, streams, dev));
    TRY_STATUS(mark_own(g, g->go));
    g->goPending = true;
    return dmac_enqueue(p);
  }
  if (!g->enqueued) TRY_STATUS(dmac_enqueue(p));
  // One caller: the write-values go on its stream (nothing waits); several: on the library's
  // stream once it has joined theirs, so that no caller's stream waits for another GPU.
  CUstream on = (CUstream)streams[0];
  if (n > 1) {
    TRY_STATUS(join(g, streams, dev));
    on = (CUstream)g->own;
  }
  TRY(cudaSetDevice(n > 1 ? g->ownDevice : dev[0]));
  for (const dmac::WordValue& w : p->prog.external)
    TRY_DRV(g->writeValue(on, word_dev(g, w.word), w.value, CU_STREAM_WRITE_VALUE_DEFAULT));
  TRY_DRV(g->writeValue(on, word_dev(g, p->prog.trigger.word), p->prog.trigger.value, CU_STREAM_WRITE_VALUE_DEFAULT));
  g->started = true;
  return DMAC_OK;
}

dmac_status dmac_trigger_host(dmac_program* p) {
  if (!p || !p->gpu) return fail(DMAC_ERR_STATE, "dmac_trigger_host: dmac_prepare first");
  Gpu* g = gpu_of(p);
  if (!g->enqueued) return fail(DMAC_ERR_STATE, "dmac_trigger_host: dmac_enqueue first");
  for (const dmac::WordValue& w : p->prog.external) host_store(g, w.word, w.value);
  if (p->prog.hasTrigger) host_store(g, p->prog.trigger.word, p->prog.trigger.value);
  g->started = true;
  return DMAC_OK;
}

dmac_status dmac_wait(dmac_program* p, void* const* streams, const int* devices, int n) {
  if (!p || !p->gpu) return fail(DMAC_ERR_STATE, "dmac_wait: dmac_prepare first");
  TRY_STATUS(need_streams(streams, n, "dmac_wait"));
  Gpu* g = gpu_of(p);
  if (!g->started) return fail(DMAC_ERR_STATE, "dmac_wait: the run has not started (dmac_trigger first): it would wait forever");
  DeviceGuard guard;
  for (int i = 0; i < n; i++) {
    cudaStream_t s = (cudaStream_t)streams[i];
    int device;
    TRY_STATUS(caller_device(streams, devices, i, guard.saved, &device));
    TRY(cudaSetDevice(device));
    for (const dmac::WordValue& w : p->prog.completions)
      TRY_DRV(g->waitValue((CUstream)s, word_dev(g, w.word), w.value, CU_STREAM_WAIT_VALUE_GEQ));
    TRY_STATUS(record_after(s, device, g->waited));  // dmac_reset must not zero the words before this stream saw them
  }
  return DMAC_OK;
}

dmac_status dmac_wait_host(dmac_program* p, double timeout_s) {
  if (!p || !p->gpu) return fail(DMAC_ERR_STATE, "dmac_wait_host: dmac_prepare first");
  Gpu* g = gpu_of(p);
  if (!g->started) return fail(DMAC_ERR_STATE, "dmac_wait_host: the run has not started (dmac_trigger first)");
  using clk = std::chrono::steady_clock;
  clk::time_point t0 = clk::now();
  for (const dmac::WordValue& w : p->prog.completions)
    while (g->words[w.word * WORD_STRIDE] != w.value)
      if (std::chrono::duration<double>(clk::now() - t0).count() > timeout_s)
        return fail(DMAC_ERR_TIMEOUT, "no completion within " + std::to_string(timeout_s) + " s (a hang?)");
  std::atomic_thread_fence(std::memory_order_acquire);
  return DMAC_OK;
}

dmac_status dmac_reset(dmac_program* p) {
  if (!p || !p->gpu) return fail(DMAC_ERR_STATE, "dmac_reset: dmac_prepare first");
  Gpu* g = gpu_of(p);
  if (g->enqueued && !g->started)
    return fail(DMAC_ERR_STATE, "dmac_reset: the run is enqueued but not triggered (dmac_trigger first)");
  DeviceGuard guard;
  for (GpuStream& ps : g->streams) {  // after every program stream's commands
    TRY(cudaSetDevice(ps.device));
    TRY(cudaEventRecord(ps.done, ps.s));
  }
  TRY(cudaSetDevice(g->ownDevice));
  for (GpuStream& ps : g->streams) TRY(cudaStreamWaitEvent(g->own, ps.done, 0));
  for (cudaEvent_t e : g->waited) TRY(cudaStreamWaitEvent(g->own, e, 0));  // and every dmac_wait
  for (int w = 0; w < p->prog.words; w++)
    TRY_DRV(g->writeValue((CUstream)g->own, word_dev(g, w), 0, CU_STREAM_WRITE_VALUE_DEFAULT));
  TRY_STATUS(mark_own(g, g->resetDone));
  for (cudaEvent_t e : g->waited) cudaEventDestroy(e);
  g->waited.clear();
  g->resetPending = true;
  g->enqueued = g->started = false;
  return DMAC_OK;
}

dmac_status dmac_reset_host(dmac_program* p) {
  if (!p || !p->gpu) return fail(DMAC_ERR_STATE, "dmac_reset_host: dmac_prepare first");
  Gpu* g = gpu_of(p);
  if (g->enqueued && !g->started)
    return fail(DMAC_ERR_STATE, "dmac_reset_host: the run is enqueued but not triggered (dmac_trigger first)");
  for (int w = 0; w < std::max(1, p->prog.words); w++) g->words[w * WORD_STRIDE] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (cudaEvent_t e : g->waited) cudaEventDestroy(e);
  g->waited.clear();
  g->resetPending = g->goPending = false;
  g->enqueued = g->started = false;
  return DMAC_OK;
}

}  // extern "C"
