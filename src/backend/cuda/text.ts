// The runner's line format of a command program (program.txt beside program.json): the same
// content, one record per line, numbers in decimal, so runtime/cuda reads it with a few lines of
// C++ and no JSON parser. docs/cuda.md documents it; a place is a GPU rank or `host`.
//
//   dmac-cuda-program 1
//   gpus N
//   words N
//   buffer ID PLACE SIZE NAME
//   trigger WORD VALUE
//   external WORD VALUE
//   completion WORD VALUE
//   stream GPU STREAM COMMANDS
//   copy SRCBUF SRCPLACE SRCOFF DSTBUF DSTPLACE DSTOFF BYTES
//   batch N                      (then N `item` lines with the copy's seven fields)
//   wait WORD geq|eq VALUE
//   write WORD VALUE
//   timestamp SLOT
//   expect BUF PLACE OFF BYTES FROMBUF FROMPLACE FROMOFF
//   end

import type { CudaCopy, CudaLoc, CudaProgram } from "./program.js";

const loc = (l: CudaLoc): string => `${l.buffer} ${l.place} ${l.offset}`;
const copy = (c: CudaCopy): string => `${loc(c.src)} ${loc(c.dst)} ${c.bytes}`;

export function programText(p: CudaProgram): string {
  const out: string[] = ["dmac-cuda-program 1", `gpus ${p.gpus}`, `words ${p.words.length}`];
  for (const b of p.buffers) out.push(`buffer ${b.id} ${b.place} ${b.size} ${b.name}`);
  if (p.trigger) out.push(`trigger ${p.trigger.word} ${p.trigger.value}`);
  for (const e of p.external) out.push(`external ${e.word} ${e.value}`);
  for (const c of p.completions) out.push(`completion ${c.word} ${c.value}`);
  for (const s of p.streams) {
    out.push(`stream ${s.gpu} ${s.stream} ${s.commands.length}`);
    for (const c of s.commands) {
      switch (c.op) {
        case "copy":
          out.push(`copy ${copy(c)}`);
          break;
        case "batch":
          out.push(`batch ${c.copies.length}`);
          for (const x of c.copies) out.push(`item ${copy(x)}`);
          break;
        case "wait":
          out.push(`wait ${c.word} ${c.cmp} ${c.value}`);
          break;
        case "write":
          out.push(`write ${c.word} ${c.value}`);
          break;
        case "timestamp":
          out.push(`timestamp ${c.slot}`);
          break;
      }
    }
  }
  for (const e of p.expect) out.push(`expect ${loc(e.at)} ${e.bytes} ${loc(e.from)}`);
  out.push("end");
  return out.join("\n") + "\n";
}
