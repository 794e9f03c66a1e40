// The text form of packet streams (dmac disasm, dump.txt). One line per packet:
//   OFFSET  RAW-DWORDS  MNEMONIC  name=value ...
// with the byte offset as 8 hex digits, the raw dwords as 8 hex digits each (at most 8 per line;
// longer packets continue on lines that start with the offset of their first dword), then the
// mnemonic and the decoded fields in table order. Optional fields at their default are not
// printed. Addresses, masks and 64-bit data are hex, counts decimal, enums by name. A dword that is
// not part of a decodable packet prints as `.dword 0x...  ; why`. Problems other than unknown and
// truncated packets (reserved bits, huge addresses) are appended to the packet's line as `; ...`.

import {
  COMPILED_BY_KIND,
  joinU64,
  lookupHeader,
  MAX_SAFE_ADDR_HI,
  type CompiledPacket,
} from "./bitfield.js";
import { decodeStream, type StreamProblem } from "./decode.js";
import type { Packet } from "./packets.js";

export interface DisasmOptions {
  /** Added to every printed offset (the stream's position in a larger buffer). */
  readonly baseOffset?: number;
  /** Raw dwords per line before wrapping (default 8). */
  readonly dwordsPerLine?: number;
}

const MAX_DATA_PRINTED = 8;

const hex = (v: number | bigint): string => `0x${v.toString(16)}`;
const hex8 = (v: number): string => (v >>> 0).toString(16).padStart(8, "0");
const offsetText = (v: number): string => v.toString(16).padStart(8, "0");

/** `name=value` for every field of `p` (raw words, when given, supply exact huge addresses). */
function formatFields(
  c: CompiledPacket,
  p: Packet,
  raw?: { words: ArrayLike<number>; at: number },
): string[] {
  const rec = p as unknown as Readonly<Record<string, unknown>>;
  const out: string[] = [];
  for (const f of c.fields) {
    const v = rec[f.name];
    if (v === undefined) continue;
    let text: string;
    switch (f.type) {
      case "uint":
        text = f.spec.type === "uint" && f.spec.hex === true ? hex(v as number) : String(v);
        break;
      case "bool":
        text = v === true ? "1" : "0";
        break;
      case "enum":
        text = v as string;
        break;
      case "addr": {
        const hi = raw ? raw.words[raw.at + f.dw + 1]! : 0;
        text =
          raw && hi > MAX_SAFE_ADDR_HI
            ? hex(joinU64(raw.words[raw.at + f.dw]! & f.mask, hi))
            : hex(v as number);
        break;
      }
      case "u64":
        text = hex(v as bigint);
        break;
      case "words": {
        const data = v as readonly number[];
        const shown = data.slice(0, MAX_DATA_PRINTED).map(hex);
        if (data.length > MAX_DATA_PRINTED) shown.push(`... ${data.length} dwords`);
        text = `[${shown.join(",")}]`;
        break;
      }
    }
    out.push(`${f.name}=${text}`);
  }
  return out;
}

/** One line: the mnemonic and the decoded fields, e.g. `COPY_LINEAR  bytes=512 src=0x1000 dst=0x2000`. */
export function formatPacket(p: Packet): string {
  const c = COMPILED_BY_KIND[p.kind];
  const fields = formatFields(c, p);
  return fields.length > 0 ? `${c.spec.mnemonic}  ${fields.join(" ")}` : c.spec.mnemonic;
}

/** The listing of a stream (see the module comment); every line ends with a newline. */
export function disassemble(
  words: Uint32Array | readonly number[],
  opts: DisasmOptions = {},
): string {
  const base = opts.baseOffset ?? 0;
  const perLine = Math.max(1, opts.dwordsPerLine ?? 8);
  const { packets, problems } = decodeStream(words);
  const byOffset = new Map<number, StreamProblem[]>();
  for (const pr of problems) {
    const list = byOffset.get(pr.offset);
    if (list) list.push(pr);
    else byOffset.set(pr.offset, [pr]);
  }
  const lines: string[] = [];
  let truncated = false;
  for (const e of packets) {
    const here = byOffset.get(e.offset) ?? [];
    const at = e.offset / 4;
    if (e.packet.kind === "unknown") {
      const why = here.map((p) => p.detail);
      if (here.some((p) => p.code === "DMAC4102")) truncated = true;
      else if (why.length === 0 && truncated) why.push("part of the truncated packet above");
      const comment = why.length > 0 ? `  ; ${why.join("; ")}` : "";
      lines.push(
        `${offsetText(base + e.offset)}  ${hex8(e.packet.word)}  .dword 0x${hex8(e.packet.word)}${comment}`,
      );
      continue;
    }
    const c = lookupHeader(words[at]!)!;
    const fields = formatFields(c, e.packet, { words, at });
    const notes = here.map((p) => `${p.code} ${p.detail}`);
    let text = c.spec.mnemonic;
    if (fields.length > 0) text += `  ${fields.join(" ")}`;
    if (notes.length > 0) text += `  ; ${notes.join("; ")}`;
    for (let k = 0; k < e.words; k += perLine) {
      const raw: string[] = [];
      for (let j = k; j < Math.min(e.words, k + perLine); j++) raw.push(hex8(words[at + j]!));
      const line = `${offsetText(base + e.offset + k * 4)}  ${raw.join(" ")}`;
      lines.push(k === 0 ? `${line}  ${text}` : line);
    }
  }
  return lines.map((l) => l + "\n").join("");
}
