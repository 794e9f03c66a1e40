/* dmac_runtime: run a compiled dmac CUDA command program (program.txt, docs/cuda.md) on an
 * application's own buffers, beside its own kernels (docs/runtime.md, "Use it from your code").
 *
 *   dmac_load            read and check a program (host only)
 *   dmac_bind            give a buffer of a rank the caller's memory; sizes checked (host only)
 *   dmac_prepare         check the bindings against the GPUs, make the program's streams and words
 *   dmac_enqueue         enqueue every command (prelaunch: behind the trigger, if the program has one)
 *   dmac_trigger         release the run after the work already on the caller's streams
 *   dmac_wait            make the caller's streams wait for the run's completion
 *   dmac_reset           the words back to zero for the next run, ordered after it on the GPUs
 *   dmac_destroy         tear down
 *
 * One process drives every GPU of the program; rank r runs on CUDA device r unless
 * dmac_set_device says otherwise. Every function returns a status; on failure
 * dmac_last_error() says why (the calling thread's last message). Nothing here exits or aborts.
 * The functions marked (host only) need no GPU and are built by g++ alone (program.cc); the others
 * live in dmac_runtime.cu. Streams are cudaStream_t values passed as void*. */
#ifndef DMAC_RUNTIME_H
#define DMAC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The place of a buffer in pinned host memory (any other place is a GPU rank). */
#define DMAC_HOST (-1)

typedef enum {
  DMAC_OK = 0,
  DMAC_ERR_ARGUMENT = 1,       /* a null pointer, a negative count */
  DMAC_ERR_IO = 2,             /* the program file cannot be read */
  DMAC_ERR_PROGRAM = 3,        /* malformed program text, or one that does not hold together */
  DMAC_ERR_UNKNOWN_BUFFER = 4, /* no buffer of that name in the program */
  DMAC_ERR_RANK = 5,           /* rank out of range, or the buffer does not exist on that rank */
  DMAC_ERR_SIZE = 6,           /* the memory bound is not the buffer's size */
  DMAC_ERR_UNBOUND = 7,        /* a buffer was never bound */
  DMAC_ERR_MEMORY = 8,         /* bound memory is not on the rank's device (or not pinned host memory) */
  DMAC_ERR_STATE = 9,          /* a call out of order (trigger before prepare, bind after it, ...) */
  DMAC_ERR_CUDA = 10,          /* a CUDA call failed: the message names it */
  DMAC_ERR_TIMEOUT = 11,       /* dmac_wait_host saw no completion in time */
  DMAC_ERR_NO_GPU = 12         /* a GPU function in a library built without CUDA (CI) */
} dmac_status;

typedef struct dmac_program dmac_program;

/* ---- host only (program.cc) ---- */
const char* dmac_last_error(void);
const char* dmac_status_name(dmac_status s);
dmac_status dmac_load(const char* path, dmac_program** out);
dmac_status dmac_load_text(const char* text, size_t length, dmac_program** out);
int dmac_gpus(const dmac_program* p);
int dmac_buffer_count(const dmac_program* p);
/** Buffer i (0 <= i < dmac_buffer_count): its name, place (a rank or DMAC_HOST) and size. */
dmac_status dmac_buffer(const dmac_program* p, int i, const char** name, int* place, uint64_t* bytes);
/** 1 when the program was compiled with --prelaunch (its streams wait for a trigger word). */
int dmac_has_trigger(const dmac_program* p);
/** The lowercase hex SHA-256 of the program text (program.json's programSha256). */
const char* dmac_program_sha256(const dmac_program* p);
/** Buffer NAME of PLACE (a rank, or DMAC_HOST) is the caller's BYTES at PTR: device memory of the
 *  rank's device, or pinned host memory (cudaHostAlloc, mapped) for a host buffer. */
dmac_status dmac_bind(dmac_program* p, const char* name, int place, void* ptr, uint64_t bytes);
/** Rank RANK runs on CUDA device DEVICE (default: device RANK). Before dmac_prepare. */
dmac_status dmac_set_device(dmac_program* p, int rank, int device);
/** DMAC_OK when every buffer of every place is bound; else DMAC_ERR_UNBOUND naming the first. */
dmac_status dmac_check_bindings(const dmac_program* p);
void dmac_destroy(dmac_program* p);

/* ---- GPU (dmac_runtime.cu) ---- */
/** Checks every binding against the devices, enables peer access, makes the streams and the
 *  words (pinned host memory mapped into every GPU) and resolves every copy's addresses. */
dmac_status dmac_prepare(dmac_program* p);
/** Enqueues every command on the program's streams. With a trigger (prelaunch) they wait for it;
 *  without one they start now. The streams first wait for the last dmac_reset. */
dmac_status dmac_enqueue(dmac_program* p);
/* Caller streams come as N cudaStream_t values with, in DEVICES, the CUDA device of each; DEVICES
 * may be null: then each stream's own device, and the legacy default stream (0) is the current
 * device's (PyTorch's default streams are all 0: give DEVICES). */

/** Starts the run once the work enqueued so far on each of the N caller streams is done: the
 *  program's external signals, then its trigger word, are written (stream write-values) on the
 *  caller's stream when N is 1, else on the library's own stream after it has waited for the
 *  callers' (events), so no caller's stream waits for another. Enqueues first if dmac_enqueue
 *  was not called. A program without a trigger is enqueued now, its streams waiting for the
 *  callers' work (events). */
dmac_status dmac_trigger(dmac_program* p, void* const* streams, const int* devices, int n);
/** The host's trigger: stores the external signals and the trigger word now (the runner's clock). */
dmac_status dmac_trigger_host(dmac_program* p);
/** Each of the N caller streams waits (stream wait-value) for every completion word. */
dmac_status dmac_wait(dmac_program* p, void* const* streams, const int* devices, int n);
/** The host spins until every completion word holds its value, at most TIMEOUT_S seconds. */
dmac_status dmac_wait_host(dmac_program* p, double timeout_s);
/** For the next run: the library's own stream waits for every program stream and every
 *  dmac_wait, then writes 0 to every word; the next dmac_enqueue's streams wait for that. No
 *  caller's stream is involved, and the host does not block. */
dmac_status dmac_reset(dmac_program* p);
/** The same from the host, for a caller that has synchronised every device. */
dmac_status dmac_reset_host(dmac_program* p);

#ifdef __cplusplus
}
#endif

#endif
