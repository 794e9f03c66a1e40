// The command program as data (program.txt, src/backend/cuda/text.ts; docs/cuda.md) and the
// library's state around it. Host-only C++17: program.cc parses and checks programs and bindings
// with g++ alone (CI tests them, test/unit/runtime/); dmac_runtime.cu adds the GPU part.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dmac_runtime.h"

namespace dmac {

/** A buffer's place in the program text: a GPU rank, or HOST (the pattern's place number too). */
const int HOST = 255;

struct Loc {
  int buffer = 0;
  int place = 0;
  uint64_t offset = 0;
};
struct Copy {
  Loc src, dst;
  uint64_t bytes = 0;
};
enum class Op { Copy, Batch, Wait, Write, Timestamp };
struct Cmd {
  Op op = Op::Copy;
  std::vector<Copy> copies;  // Copy: one, Batch: n
  int word = 0;
  bool eq = false;
  uint32_t value = 0;
};
struct Stream {
  int gpu = 0, id = 0;
  std::vector<Cmd> cmds;
};
struct Buffer {
  int id = 0, place = 0;
  uint64_t size = 0;
  std::string name;
};
struct Expect {
  Loc at;
  uint64_t bytes = 0;
  Loc from;
};
struct WordValue {
  int word = 0;
  uint32_t value = 0;
};
struct Program {
  int gpus = 0, words = 0;
  std::vector<Buffer> buffers;
  bool hasTrigger = false;
  WordValue trigger;
  std::vector<WordValue> external, completions;
  std::vector<Stream> streams;
  std::vector<Expect> expects;
  std::string sha256;  // of the text parsed
  /** The index in `buffers` of (id, place), or -1. */
  int find(int id, int place) const;
};

/** Parses program.txt and checks that it holds together (places, words, ranges); false with a
 *  message naming the line otherwise. */
bool parse(const std::string& text, Program& out, std::string& err);

/** Sets the calling thread's last error; returns `s`. */
dmac_status fail(dmac_status s, const std::string& message);

}  // namespace dmac

/** The library's handle: the program, the caller's bindings and, once prepared, the GPU state
 *  (dmac_runtime.cu owns it and its teardown). */
struct dmac_program {
  dmac::Program prog;
  std::vector<void*> ptrs;  // per buffer: the caller's memory, or null
  std::vector<int> device;  // per rank: its CUDA device
  void* gpu = nullptr;
  void (*teardown)(dmac_program*) = nullptr;
};
