// Host-only half of dmac_runtime (dmac_runtime.h): the program-text parser, its checks, the
// bindings and their checks, the error messages. Builds with g++ alone: CI tests it without a GPU.

#include "program.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <tuple>

#include "sha256.h"

namespace dmac {

static thread_local std::string lastError;

dmac_status fail(dmac_status s, const std::string& message) {
  lastError = message;
  return s;
}

int Program::find(int id, int place) const {
  for (size_t i = 0; i < buffers.size(); i++)
    if (buffers[i].id == id && buffers[i].place == place) return (int)i;
  return -1;
}

namespace {

struct Parser {
  std::istringstream in;
  int line = 1;
  std::string err;

  bool bad(const std::string& why) {
    if (err.empty()) err = "line " + std::to_string(line) + ": " + why;
    return false;
  }
  bool place(const std::string& s, int& out) {
    if (s == "host") return out = HOST, true;
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 3)
      return bad("a place is a GPU rank or 'host', not '" + s + "'");
    out = std::stoi(s);
    return true;
  }
  bool loc(std::istringstream& f, Loc& l) {
    std::string p;
    if (!(f >> l.buffer >> p >> l.offset)) return bad("expected BUFFER PLACE OFFSET");
    return place(p, l.place);
  }
  bool copy(std::istringstream& f, Copy& c) {
    if (!loc(f, c.src) || !loc(f, c.dst)) return false;
    if (!(f >> c.bytes)) return bad("expected the copy's byte count");
    return true;
  }
  /** Nothing may follow a record's fields. */
  bool done(std::istringstream& f) {
    std::string extra;
    if (f >> extra) return bad("unexpected '" + extra + "'");
    return true;
  }
};

/** Whether the `bytes` at `l` lie inside a buffer of the program. */
bool inside(const Program& p, const Loc& l, uint64_t bytes, std::string& why) {
  int b = p.find(l.buffer, l.place);
  if (b < 0) {
    why = "buffer " + std::to_string(l.buffer) + " does not exist on place " +
          (l.place == HOST ? std::string("host") : std::to_string(l.place));
    return false;
  }
  uint64_t size = p.buffers[b].size;
  if (l.offset > size || bytes > size - l.offset) {
    why = std::to_string(bytes) + " bytes at offset " + std::to_string(l.offset) + " run past the end of buffer " +
          p.buffers[b].name + " (" + std::to_string(size) + " bytes)";
    return false;
  }
  return true;
}

bool record(Parser& ps, Program& p, const std::string& key, std::istringstream& f, Stream*& cur) {
  if (key == "gpus") return (f >> p.gpus && p.gpus >= 1 && p.gpus < HOST) || ps.bad("gpus must be 1 to 254");
  if (key == "words") return (f >> p.words && p.words >= 0) || ps.bad("words must be a count");
  if (key == "buffer") {
    Buffer b;
    std::string pl;
    if (!(f >> b.id >> pl >> b.size >> b.name) || !ps.place(pl, b.place)) return ps.bad("expected ID PLACE SIZE NAME");
    if (p.find(b.id, b.place) >= 0) return ps.bad("buffer " + std::to_string(b.id) + " is declared twice on one place");
    p.buffers.push_back(b);
    return true;
  }
  if (key == "trigger") {
    p.hasTrigger = true;
    return (bool)(f >> p.trigger.word >> p.trigger.value) || ps.bad("expected WORD VALUE");
  }
  if (key == "external" || key == "completion") {
    WordValue w;
    if (!(f >> w.word >> w.value)) return ps.bad("expected WORD VALUE");
    (key == "external" ? p.external : p.completions).push_back(w);
    return true;
  }
  if (key == "stream") {
    Stream s;
    size_t n;
    if (!(f >> s.gpu >> s.id >> n)) return ps.bad("expected GPU STREAM COMMANDS");
    p.streams.push_back(s);
    cur = &p.streams.back();
    cur->cmds.reserve(n);
    return true;
  }
  if (key == "copy" || key == "batch" || key == "wait" || key == "write" || key == "timestamp") {
    if (!cur) return ps.bad("a command before any stream");
    Cmd c;
    if (key == "copy") {
      c.op = Op::Copy;
      c.copies.emplace_back();
      if (!ps.copy(f, c.copies[0])) return false;
    } else if (key == "batch") {
      c.op = Op::Batch;
      int n;
      if (!(f >> n) || n < 1) return ps.bad("a batch holds at least one copy");
      for (int i = 0; i < n; i++) {
        std::string line, k;
        if (!std::getline(ps.in, line)) return ps.bad("the batch ends early");
        ps.line++;
        std::istringstream item(line);
        c.copies.emplace_back();
        if (!(item >> k) || k != "item") return ps.bad("expected 'item'");
        if (!ps.copy(item, c.copies.back()) || !ps.done(item)) return false;
      }
    } else if (key == "wait") {
      std::string cmp;
      c.op = Op::Wait;
      if (!(f >> c.word >> cmp >> c.value) || (cmp != "eq" && cmp != "geq")) return ps.bad("expected WORD geq|eq VALUE");
      c.eq = cmp == "eq";
    } else if (key == "write") {
      c.op = Op::Write;
      if (!(f >> c.word >> c.value)) return ps.bad("expected WORD VALUE");
    } else {
      c.op = Op::Timestamp;
      int slot;
      if (!(f >> slot)) return ps.bad("expected SLOT");
    }
    cur->cmds.push_back(std::move(c));
    return true;
  }
  if (key == "expect") {
    Expect e;
    if (!ps.loc(f, e.at) || !(f >> e.bytes) || !ps.loc(f, e.from)) return ps.bad("expected BUF PLACE OFF BYTES FROMBUF FROMPLACE FROMOFF");
    p.expects.push_back(e);
    return true;
  }
  return ps.bad("unknown record '" + key + "'");
}

/** The checks that need the whole program: places, words, ranges, disjoint expectations. */
bool holds_together(const Program& p, std::string& err) {
  std::string why;
  auto word = [&](int w, const char* what) {
    if (w >= 0 && w < p.words) return true;
    err = std::string(what) + " names word " + std::to_string(w) + " of " + std::to_string(p.words);
    return false;
  };
  for (const Buffer& b : p.buffers)
    if (b.place != HOST && b.place >= p.gpus)
      return err = "buffer " + b.name + " is on rank " + std::to_string(b.place) + " of " + std::to_string(p.gpus) + " GPUs", false;
  if (p.hasTrigger && !word(p.trigger.word, "the trigger")) return false;
  for (const WordValue& w : p.external)
    if (!word(w.word, "an external signal")) return false;
  for (const WordValue& w : p.completions)
    if (!word(w.word, "a completion")) return false;
  for (const Stream& s : p.streams) {
    if (s.gpu < 0 || s.gpu >= p.gpus)
      return err = "stream " + std::to_string(s.id) + " is on GPU " + std::to_string(s.gpu) + " of " + std::to_string(p.gpus), false;
    for (const Cmd& c : s.cmds) {
      if ((c.op == Op::Wait || c.op == Op::Write) && !word(c.word, c.op == Op::Wait ? "a wait" : "a write")) return false;
      for (const Copy& x : c.copies)
        if (!inside(p, x.src, x.bytes, why) || !inside(p, x.dst, x.bytes, why))
          return err = "a copy of stream " + std::to_string(s.id) + " on GPU " + std::to_string(s.gpu) + ": " + why, false;
    }
  }
  std::vector<Expect> e = p.expects;
  for (const Expect& x : e)
    if (!inside(p, x.at, x.bytes, why) || !inside(p, x.from, x.bytes, why)) return err = "an expect line: " + why, false;
  std::sort(e.begin(), e.end(), [](const Expect& a, const Expect& b) {
    return std::tie(a.at.buffer, a.at.place, a.at.offset) < std::tie(b.at.buffer, b.at.place, b.at.offset);
  });
  for (size_t i = 1; i < e.size(); i++)
    if (e[i].at.buffer == e[i - 1].at.buffer && e[i].at.place == e[i - 1].at.place &&
        e[i].at.offset < e[i - 1].at.offset + e[i - 1].bytes)
      return err = "two expect lines overlap in buffer " + std::to_string(e[i].at.buffer), false;
  return true;
}

}  // namespace

bool parse(const std::string& text, Program& p, std::string& err) {
  Parser ps;
  ps.in.str(text);
  std::string line, key;
  if (!std::getline(ps.in, line) || line != "dmac-cuda-program 1") {
    err = "not a dmac CUDA program (its first line is not 'dmac-cuda-program 1')";
    return false;
  }
  p = Program();
  p.sha256 = sha256_hex(text);
  Stream* cur = nullptr;
  bool ended = false;
  while (!ended && std::getline(ps.in, line)) {
    ps.line++;
    std::istringstream f(line);
    if (!(f >> key)) continue;
    if (key == "end") ended = true;
    else if (!record(ps, p, key, f, cur) || !ps.done(f)) return err = ps.err, false;
  }
  if (!ended) return err = "the program ends without 'end'", false;
  if (p.gpus < 1) return err = "the program names no 'gpus'", false;
  return holds_together(p, err);
}

}  // namespace dmac

// ---- the C API's host-only functions ----------------------------------------------------------

using dmac::fail;

static std::string place_text(int place) { return place == DMAC_HOST ? "host" : "rank " + std::to_string(place); }

extern "C" {

const char* dmac_last_error(void) { return dmac::lastError.c_str(); }

const char* dmac_status_name(dmac_status s) {
  static const char* names[] = {"ok",         "bad argument",    "cannot read", "bad program", "unknown buffer",
                                "bad rank",   "wrong size",      "unbound",     "wrong memory", "out of order",
                                "CUDA error", "timed out",       "no GPU support"};
  return (int)s >= 0 && (int)s < (int)(sizeof names / sizeof *names) ? names[s] : "unknown status";
}

dmac_status dmac_load_text(const char* text, size_t length, dmac_program** out) {
  if (!text || !out) return fail(DMAC_ERR_ARGUMENT, "dmac_load_text: null argument");
  *out = nullptr;
  auto* p = new dmac_program();
  std::string err;
  if (!dmac::parse(std::string(text, length), p->prog, err)) {
    delete p;
    return fail(DMAC_ERR_PROGRAM, "bad program: " + err);
  }
  p->ptrs.assign(p->prog.buffers.size(), nullptr);
  for (int g = 0; g < p->prog.gpus; g++) p->device.push_back(g);
  *out = p;
  return DMAC_OK;
}

dmac_status dmac_load(const char* path, dmac_program** out) {
  if (!path || !out) return fail(DMAC_ERR_ARGUMENT, "dmac_load: null argument");
  std::ifstream file(path, std::ios::binary);
  if (!file) return fail(DMAC_ERR_IO, std::string("cannot read ") + path);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  std::string text = bytes.str();
  dmac_status s = dmac_load_text(text.data(), text.size(), out);
  if (s != DMAC_OK) fail(s, std::string(path) + ": " + dmac_last_error());
  return s;
}

int dmac_gpus(const dmac_program* p) { return p ? p->prog.gpus : 0; }
int dmac_buffer_count(const dmac_program* p) { return p ? (int)p->prog.buffers.size() : 0; }
int dmac_has_trigger(const dmac_program* p) { return p && p->prog.hasTrigger; }
const char* dmac_program_sha256(const dmac_program* p) { return p ? p->prog.sha256.c_str() : ""; }

dmac_status dmac_buffer(const dmac_program* p, int i, const char** name, int* place, uint64_t* bytes) {
  if (!p || i < 0 || i >= (int)p->prog.buffers.size())
    return fail(DMAC_ERR_ARGUMENT, "dmac_buffer: no buffer " + std::to_string(i));
  const dmac::Buffer& b = p->prog.buffers[i];
  if (name) *name = b.name.c_str();
  if (place) *place = b.place == dmac::HOST ? DMAC_HOST : b.place;
  if (bytes) *bytes = b.size;
  return DMAC_OK;
}

dmac_status dmac_bind(dmac_program* p, const char* name, int place, void* ptr, uint64_t bytes) {
  if (!p || !name || !ptr) return fail(DMAC_ERR_ARGUMENT, "dmac_bind: null argument");
  if (p->gpu) return fail(DMAC_ERR_STATE, "dmac_bind after dmac_prepare: bind every buffer first");
  if (place != DMAC_HOST && (place < 0 || place >= p->prog.gpus))
    return fail(DMAC_ERR_RANK, "rank " + std::to_string(place) + " is out of range: the program has " +
                                   std::to_string(p->prog.gpus) + " GPUs (ranks 0.." + std::to_string(p->prog.gpus - 1) + ")");
  std::string names;
  for (size_t i = 0; i < p->prog.buffers.size(); i++) {
    const dmac::Buffer& b = p->prog.buffers[i];
    if (b.name != name) {
      if (names.find(" " + b.name + ",") == std::string::npos) names += " " + b.name + ",";
      continue;
    }
    if ((b.place == dmac::HOST ? DMAC_HOST : b.place) != place) continue;
    if (b.size != bytes)
      return fail(DMAC_ERR_SIZE, "buffer " + b.name + " of " + place_text(place) + " is " + std::to_string(b.size) +
                                     " bytes in the program; the memory bound is " + std::to_string(bytes) + " bytes");
    p->ptrs[i] = ptr;
    return DMAC_OK;
  }
  for (const dmac::Buffer& b : p->prog.buffers)
    if (b.name == name)
      return fail(DMAC_ERR_RANK, std::string("buffer ") + name + " does not exist on " + place_text(place) + " (it is " +
                                     (b.place == dmac::HOST ? std::string("in host memory") : "on GPU ranks") + ")");
  if (!names.empty()) names.pop_back();
  return fail(DMAC_ERR_UNKNOWN_BUFFER, std::string("the program has no buffer ") + name + " (it has:" + names + ")");
}

dmac_status dmac_set_device(dmac_program* p, int rank, int device) {
  if (!p || device < 0) return fail(DMAC_ERR_ARGUMENT, "dmac_set_device: null program or negative device");
  if (p->gpu) return fail(DMAC_ERR_STATE, "dmac_set_device after dmac_prepare");
  if (rank < 0 || rank >= p->prog.gpus)
    return fail(DMAC_ERR_RANK, "rank " + std::to_string(rank) + " is out of range: the program has " +
                                   std::to_string(p->prog.gpus) + " GPUs");
  p->device[rank] = device;
  return DMAC_OK;
}

dmac_status dmac_check_bindings(const dmac_program* p) {
  if (!p) return fail(DMAC_ERR_ARGUMENT, "dmac_check_bindings: null program");
  for (size_t i = 0; i < p->prog.buffers.size(); i++)
    if (!p->ptrs[i]) {
      const dmac::Buffer& b = p->prog.buffers[i];
      return fail(DMAC_ERR_UNBOUND, "buffer " + b.name + " of " + place_text(b.place == dmac::HOST ? DMAC_HOST : b.place) +
                                        " is not bound (dmac_bind)");
    }
  return DMAC_OK;
}

void dmac_destroy(dmac_program* p) {
  if (!p) return;
  if (p->teardown) p->teardown(p);
  delete p;
}

}  // extern "C"
