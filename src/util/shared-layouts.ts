// Every layout of memory that two of dmac's threads share, declared once. Both sides of each
// protocol (the module that starts a worker and the worker's entry module, or the two ends of a
// log) import their word indices from here, so neither can drift from the other.

// --- The write ring of big outputs (backend/write-behind.ts, backend/write-behind-worker.ts) ---

/**
 * The ring the chunks travel through: WRITE_SLOTS slots of WRITE_SLOT_BYTES bytes. The ring is
 * all the memory a slow disk can cost, and it is allocated once (a fresh buffer per chunk meant
 * fresh pages, a page fault each, for every byte written).
 */
export const WRITE_SLOT_BYTES = 4 << 20;
export const WRITE_SLOTS = 8;
/**
 * The ring's control words (an Int32Array): word k < WRITE_SLOTS is 1 while slot k holds bytes
 * the worker has not written yet; word WRITE_STATE is the worker's state (WriterState).
 */
export const WRITE_STATE = WRITE_SLOTS;
export const WRITE_CONTROL_WORDS = WRITE_SLOTS + 1;
/** The writer's states: the main thread abandons a worker that did not start in time. */
export const WriterState = { starting: 0, running: 1, abandoned: 2 } as const;

/** What the main thread posts for each filled slot. */
export interface WriteSlotMessage {
  readonly fd: number;
  readonly slot: number;
  readonly length: number;
}

// --- The sim helper thread's flag (sim/session/helper.ts and helper-thread.ts) ---

/** Replies posted by the thread (the other thread waits on it). */
export const HELPER_POSTED = 0;
/** 1 once the thread has started. */
export const HELPER_STARTED = 1;
/** The thread's OS thread id (0: unknown). */
export const HELPER_TID = 2;
export const HELPER_FLAG_WORDS = 3;

// --- The check log's header (sim/check-log.ts: CheckLog writes, LogReader replays) ---

/** The writer's published position. */
export const LOG_WRITTEN = 0;
/** The reader's published position. */
export const LOG_READ = 1;
/** Raised by the reader when it stopped (failed or done): a writer waiting for room stops. */
export const LOG_STOPPED = 2;
/**
 * 1 while the reader waits for records (the writer wakes it only then), and while the writer
 * waits for room (the reader wakes it only then): a wake-up is a system call, and an
 * inter-processor interrupt in a VM.
 */
export const LOG_READER_WAITS = 3;
export const LOG_WRITER_WAITS = 4;
export const LOG_HEADER_WORDS = 5;

/**
 * Marks a log as read no more (`header`: its header's memory), as its reader does when it
 * stops: a writer waiting for room stops waiting. For a reader that fails before it replays.
 */
export function stopLog(header: SharedArrayBuffer): void {
  const words = new Int32Array(header);
  Atomics.store(words, LOG_STOPPED, 1);
  Atomics.notify(words, LOG_READ);
}
