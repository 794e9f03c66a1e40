// Annotated listings (dump.txt, `dmac disasm` beside a manifest), in the manner of `objdump -S`
// and Mesa's ac_parse_ib: the plain listing of disasm.ts, plus
// - a header naming the program's memory (buffers, signals, sync words, slots, the trigger);
// - every address a packet field holds shown by name (symbols.ts: `buf@3+0x40`, `sync5`,
//   `completion[6]`) and every byte count as a size (`bytes=256 KiB`, format-size.ts);
// - above the packets of each statement, the statement's source line (`; 18: copy ...`), from the
//   manifest's source map, when the source is at hand;
// - self-checks appended to a packet's line as `; warning: ...`: an address in no buffer, a
//   count that runs past the end of its buffer, a poll or a signal write on a word the program
//   does not name, a 64-bit atomic on a 32-bit word, a timestamp outside the timestamp slots.
// The listing is a reading aid: the raw dwords stay on every line, and `--raw` drops the rest.
//
// The same facts feed `dmac disasm --json` (packetNotes): one function decides them.

import type { CompiledField } from "./bitfield.js";
import type { ListingHooks, TextSink } from "./disasm.js";
import type { ManifestMemory, ManifestSourceMap } from "./manifest.js";
import type { PackedRows } from "./packed-rows.js";
import { hexAddr, type Packet } from "./packets.js";
import { AddressSymbols, symbolText, type AddressSymbol } from "./symbols.js";
import { formatSizeExact } from "../../util/format-size.js";

/** What an annotated listing knows about the program the streams belong to. */
export interface ListingContext {
  readonly memory: ManifestMemory;
  readonly trigger: { readonly address: number; readonly value: number } | null;
  /** sourceMap.file (the header names it) and sourceMap.stmts. */
  readonly sourceFile: string;
  readonly stmts: ManifestSourceMap["stmts"];
  /** Text of 1-based line n of the source; undefined when the source is not at hand. */
  readonly sourceLine: ((line: number) => string | undefined) | undefined;
  /** Why the source lines are missing (said once in the header), when they are. */
  readonly sourceNote?: string | undefined;
}

/** A ListingContext with its symbol table built once for every queue. */
export interface Listing {
  readonly ctx: ListingContext;
  readonly symbols: AddressSymbols;
}

export function makeListing(ctx: ListingContext): Listing {
  return { ctx, symbols: new AddressSymbols(ctx.memory, ctx.trigger) };
}

/** What the listing adds to one packet (also disasm --json's fields). */
export interface PacketNotes {
  /** Address field -> its name, for the fields whose address the program names. */
  readonly symbols: Readonly<Record<string, string>>;
  readonly warnings: readonly string[];
}

// ---- per-packet facts ----------------------------------------------------------------------

/** Address fields that must lie in a buffer, with the bytes the packet touches from them. */
function dataRanges(p: Packet): readonly (readonly [string, number, number])[] {
  switch (p.kind) {
    case "copy_linear":
      return [
        ["src", p.src, p.bytes],
        ["dst", p.dst, p.bytes],
      ];
    case "copy_broadcast":
      return [
        ["src", p.src, p.bytes],
        ["dst1", p.dst1, p.bytes],
        ["dst2", p.dst2, p.bytes],
      ];
    case "copy_swap":
      return [
        ["a", p.a, p.bytes],
        ["b", p.b, p.bytes],
      ];
    case "constant_fill":
      return [["dst", p.dst, p.bytes]];
    case "write_linear":
      return [["dst", p.dst, p.data.length * 4]];
    default:
      return [];
  }
}

const WORD_KINDS = new Set(["signal", "sync", "completion", "trigger"]);

/** The warning about the word a poll, fence, atomic or MEM_INCR at `addr` uses, if any. */
function wordWarning(p: Packet, addr: number, s: AddressSymbol | undefined): string | undefined {
  const verb = p.kind === "poll_mem" || p.kind === "cond_exe" ? "polls" : "writes";
  if (!s) return `${verb} ${hexAddr(addr)}, a word the program does not name`;
  if (!WORD_KINDS.has(s.kind))
    return `${verb} ${symbolText(s)}, not a signal, sync or completion word`;
  if (p.kind === "atomic" && p.op.endsWith("64") && s.size < 8)
    return `64-bit ${p.op} on the 32-bit word ${symbolText(s)}`;
  if (p.kind === "sem_mem_incr" && s.size < 8)
    return `a 64-bit increment of the 32-bit word ${symbolText(s)}`;
  return undefined;
}

/** The names of `p`'s addresses and the self-checks' warnings. */
export function packetNotes(listing: Listing, p: Packet): PacketNotes {
  const symbols: Record<string, string> = {};
  const warnings: string[] = [];
  const name = (field: string, addr: number): AddressSymbol | undefined => {
    const s = listing.symbols.resolve(addr);
    if (s) symbols[field] = symbolText(s);
    return s;
  };
  const ranges = dataRanges(p);
  for (const [field, addr, bytes] of ranges) {
    const s = name(field, addr);
    if (!s) warnings.push(`${field} ${hexAddr(addr)} is in no buffer`);
    else if (s.kind !== "buffer") warnings.push(`${field} is ${symbolText(s)}, not a buffer`);
    else if (s.offset + bytes > s.size)
      warnings.push(
        `${field} runs ${formatSizeExact(s.offset + bytes - s.size)} past the end of ${s.base} (${formatSizeExact(s.size)})`,
      );
  }
  if (ranges.length > 0) return { symbols, warnings };
  switch (p.kind) {
    case "poll_mem":
    case "cond_exe":
    case "fence":
    case "atomic":
    case "sem_mem_incr": {
      const w = wordWarning(p, p.addr, name("addr", p.addr));
      if (w !== undefined) warnings.push(w);
      break;
    }
    case "timestamp_get":
    case "timestamp_get_global": {
      const s = name("addr", p.addr);
      if (s?.kind !== "timestamp") warnings.push(`writes ${hexAddr(p.addr)}, not a timestamp slot`);
      break;
    }
    default:
      break;
  }
  return { symbols, warnings };
}

// ---- the listing hooks ---------------------------------------------------------------------

/**
 * The hooks disasm.ts calls while it lists one queue: source lines above the packets whose
 * source-map entry names a new statement, names for addresses, sizes for counts, warnings.
 * `rows`: the queue's source-map entries [byteOffset, stmt, ...ops] in offset order.
 */
export class QueueAnnotator implements ListingHooks {
  /** The next source-map row to reach, and the row covering the last packet begun (-1: none). */
  private next = 0;
  private current = -1;
  private lastStmt = -1;
  private notes: PacketNotes = { symbols: {}, warnings: [] };

  constructor(
    private readonly listing: Listing,
    private readonly rows: PackedRows | undefined,
  ) {}

  /** Moves to the entry at `offset`; true when it starts a statement other than the last one's. */
  private advance(offset: number): boolean {
    const rows = this.rows;
    if (!rows) return false;
    while (this.next < rows.length && rows.data[rows.starts[this.next]!]! <= offset)
      this.current = this.next++;
    if (this.current < 0) return false;
    const stmt = rows.data[rows.starts[this.current]! + 1]!;
    if (stmt === this.lastStmt) return false;
    this.lastStmt = stmt;
    return true;
  }

  begin(out: TextSink, offset: number, packet: Packet | undefined): void {
    if (this.advance(offset)) {
      const at = this.listing.ctx.stmts[this.lastStmt];
      if (at) {
        const text = this.listing.ctx.sourceLine?.(at.line)?.trim();
        out.text(text !== undefined ? `; ${at.line}: ${text}\n` : `; ${at.line}\n`);
      }
    }
    if (packet) this.notes = packetNotes(this.listing, packet);
  }

  value(f: CompiledField, v: unknown): string | undefined {
    if (f.type === "addr") return this.notes.symbols[f.name];
    if (f.spec.type === "uint" && f.spec.size === true && typeof v === "number")
      return formatSizeExact(v);
    return undefined;
  }

  end(): string {
    const w = this.notes.warnings;
    return w.length === 0 ? "" : `  ; warning: ${w.join("; warning: ")}`;
  }

  /** disasm --json's annotations of the entry at `offset` (entries in stream order). */
  entryNotes(offset: number, packet: Packet | undefined): EntryNotes {
    this.advance(offset);
    const out: { -readonly [K in keyof EntryNotes]: EntryNotes[K] } = {};
    if (this.current >= 0) {
      const row = this.rows!.row(this.current);
      const stmt = row[1]!;
      const at = this.listing.ctx.stmts[stmt];
      const text = at ? this.listing.ctx.sourceLine?.(at.line) : undefined;
      out.source = {
        stmt,
        ...(at ? { line: at.line, col: at.col } : {}),
        ops: row.slice(2),
        ...(text !== undefined ? { text: text.trim() } : {}),
      };
    }
    if (packet) {
      const notes = packetNotes(this.listing, packet);
      if (Object.keys(notes.symbols).length > 0) out.symbols = notes.symbols;
      if (notes.warnings.length > 0) out.warnings = notes.warnings;
    }
    return out;
  }
}

/** The annotation fields of one disasm --json entry (schemas/disasm.schema.json). */
export interface EntryNotes {
  readonly source?: {
    readonly stmt: number;
    readonly line?: number;
    readonly col?: number;
    readonly ops: readonly number[];
    readonly text?: string;
  };
  readonly symbols?: Readonly<Record<string, string>>;
  readonly warnings?: readonly string[];
}

// ---- the header ----------------------------------------------------------------------------

/** The listing's header: the source, then every named thing with its address, one per line. */
export function listingHeader(listing: Listing): string {
  const { ctx } = listing;
  const m = ctx.memory;
  const lines = [`# source: ${ctx.sourceFile}${ctx.sourceNote ? ` (${ctx.sourceNote})` : ""}`];
  for (const b of m.buffers)
    lines.push(`# buffer ${b.name}@${b.gpu} at ${hexAddr(b.address)}, ${formatSizeExact(b.size)}`);
  for (const s of m.signals) lines.push(`# signal ${s.name}@${s.gpu} at ${hexAddr(s.address)}`);
  for (const w of m.syncWords)
    lines.push(
      `# sync${w.id} at ${hexAddr(w.address)}: ${w.kind === "progress" ? `progress ${w.producer} -> ${w.consumer}` : `barrier of ${w.queue}`}`,
    );
  const slots = (what: string, s: ManifestMemory["completionSignals"]): void => {
    if (s.count > 0)
      lines.push(
        `# ${what}[0..${s.count - 1}] at ${hexAddr(s.base)}, ${formatSizeExact(s.stride)} apart`,
      );
  };
  slots("completion", m.completionSignals);
  slots("timestamp", m.timestampSlots);
  if (ctx.trigger)
    lines.push(`# trigger at ${hexAddr(ctx.trigger.address)}, released by ${ctx.trigger.value}`);
  return lines.join("\n") + "\n\n";
}
