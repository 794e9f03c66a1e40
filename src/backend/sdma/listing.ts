// Annotated listings (dump.txt, `dmac disasm` beside a manifest), in the manner of `objdump -S`
// and Mesa's ac_parse_ib: the plain listing of disasm.ts, plus
// - a header naming the program's memory (buffers, signals, sync words, slots, the trigger);
// - every address a packet field holds shown by name (symbols.ts: `buf@3+0x40`, `sync5`,
//   `completion[6]`) and every byte count as a size (`bytes=256 KiB`, format-size.ts);
// - above the packets of each statement instance, the statement's source line and the loop
//   instance(s) the packets implement (`; 18 [r=1 k=0..3]: copy ...`), from the manifest's source
//   map, with the text when the source is at hand and the instance when the loop values are known
//   (the IR, or the values the manifest records);
// - self-checks appended to a packet's line as `; warning: ...`: an address in no buffer, a
//   count that runs past the end of its buffer, a poll or a signal write on a word the program
//   does not name, a 64-bit atomic on a 32-bit word, a timestamp outside the timestamp slots.
// The listing is a reading aid: the raw dwords stay on every line, and `--raw` drops the rest.
//
// The same facts feed `dmac disasm --json` (packetNotes): one function decides them.

import { signalStores } from "../../ir/signal-contract.js";
import type { CompiledField } from "./bitfield.js";
import type { ListingHooks, TextSink } from "./disasm.js";
import type { ManifestMemory, ManifestSourceMap } from "./manifest.js";
import type { PackedRows } from "./packed-rows.js";
import { hexAddr, type Packet } from "./packets.js";
import { AddressSymbols, bufferName, symbolText, type AddressSymbol } from "./symbols.js";
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
  /** `r=1 k=0..3`: the loop instance(s) of statement `stmt` that IR ops `ops` are (ir/instances.ts);
   * absent when the loop values are unknown (a manifest written before it recorded them). */
  readonly instances?: ((stmt: number, ops: ArrayLike<number>) => string) | undefined;
}

/** A ListingContext with its symbol table built once for every queue. */
export interface Listing {
  readonly ctx: ListingContext;
  readonly symbols: AddressSymbols;
  /** Per statement, the parts of the line printed above its packets (filled as they are listed):
   * `; LINE` and the rest, between which an instance goes. */
  readonly lines: Map<number, readonly [string, string]>;
}

export function makeListing(ctx: ListingContext): Listing {
  return { ctx, symbols: new AddressSymbols(ctx.memory, ctx.trigger), lines: new Map() };
}

/** What the listing adds to one packet (also disasm --json's fields). */
export interface PacketNotes {
  /** Address field -> its name, for the fields whose address the program names. */
  readonly symbols: Readonly<Record<string, string>>;
  readonly warnings: readonly string[];
}

// ---- per-packet facts ----------------------------------------------------------------------

/**
 * The names and warnings of one packet, collected into reusable arrays: the annotated dump of a
 * 10^6-operation program notes millions of packets, and an object and a record per packet
 * doubled the listing's garbage-collection time.
 */
class NoteSink {
  readonly fields: string[] = [];
  readonly names: string[] = [];
  readonly warnings: string[] = [];
  constructor(private readonly listing: Listing) {}

  clear(): void {
    this.fields.length = 0;
    this.names.length = 0;
    this.warnings.length = 0;
  }
  name(field: string): string | undefined {
    for (let i = 0; i < this.fields.length; i++) if (this.fields[i] === field) return this.names[i];
    return undefined;
  }
  private resolve(field: string, addr: number): AddressSymbol | undefined {
    const s = this.listing.symbols.resolve(addr);
    if (s) {
      this.fields.push(field);
      this.names.push(symbolText(s));
    }
    return s;
  }
  /** An address field that must lie in a buffer, with the bytes the packet touches from it. */
  private data(field: string, addr: number, bytes: number): void {
    const s = this.resolve(field, addr);
    if (!s) this.warnings.push(`${field} ${hexAddr(addr)} is in no buffer`);
    else if (s.kind !== "buffer") this.warnings.push(`${field} is ${symbolText(s)}, not a buffer`);
    else if (s.offset + bytes > s.size)
      this.warnings.push(
        `${field} runs ${formatSizeExact(s.offset + bytes - s.size)} past the end of ${s.base} (${formatSizeExact(s.size)})`,
      );
  }
  /** A poll, fence, atomic or MEM_INCR address: a signal, sync or completion word. */
  private word(p: Packet & { readonly addr: number }): void {
    const s = this.resolve("addr", p.addr);
    const verb = p.kind === "poll_mem" || p.kind === "cond_exe" ? "polls" : "writes";
    if (!s) this.warnings.push(`${verb} ${hexAddr(p.addr)}, a word the program does not name`);
    else if (!WORD_KINDS.has(s.kind))
      this.warnings.push(`${verb} ${symbolText(s)}, not a signal, sync or completion word`);
    else if (p.kind === "atomic" && p.op.endsWith("64") && s.size < 8)
      this.warnings.push(`64-bit ${p.op} on the 32-bit word ${symbolText(s)}`);
    else if (p.kind === "sem_mem_incr" && s.size < 8)
      this.warnings.push(`a 64-bit increment of the 32-bit word ${symbolText(s)}`);
  }

  /** Notes `p` (after clear()). */
  note(p: Packet): void {
    switch (p.kind) {
      case "copy_linear":
        this.data("src", p.src, p.bytes);
        this.data("dst", p.dst, p.bytes);
        break;
      case "copy_broadcast":
        this.data("src", p.src, p.bytes);
        this.data("dst1", p.dst1, p.bytes);
        this.data("dst2", p.dst2, p.bytes);
        break;
      case "copy_swap":
        this.data("a", p.a, p.bytes);
        this.data("b", p.b, p.bytes);
        break;
      case "constant_fill":
        this.data("dst", p.dst, p.bytes);
        break;
      case "write_linear":
        this.data("dst", p.dst, p.data.length * 4);
        break;
      case "poll_mem":
      case "cond_exe":
      case "fence":
      case "atomic":
      case "sem_mem_incr":
        this.word(p);
        break;
      case "timestamp_get":
      case "timestamp_get_global":
        if (this.resolve("addr", p.addr)?.kind !== "timestamp")
          this.warnings.push(`writes ${hexAddr(p.addr)}, not a timestamp slot`);
        break;
      default:
        break;
    }
  }
}

const WORD_KINDS = new Set(["signal", "sync", "completion", "trigger"]);

/** The names of `p`'s addresses and the self-checks' warnings. */
export function packetNotes(listing: Listing, p: Packet): PacketNotes {
  const sink = new NoteSink(listing);
  sink.note(p);
  const symbols: Record<string, string> = {};
  sink.fields.forEach((f, i) => (symbols[f] = sink.names[i]!));
  return { symbols, warnings: sink.warnings };
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
  /** The statement and instance whose line was printed last. */
  private lastStmt = -1;
  private lastInstance = "";
  private readonly notes: NoteSink;
  /** formatSizeExact of the byte counts seen (a program has few distinct sizes). */
  private readonly sizes = new Map<number, string>();

  constructor(
    private readonly listing: Listing,
    private readonly rows: PackedRows | undefined,
  ) {
    this.notes = new NoteSink(listing);
  }

  /** Moves to the entry at `offset`; true when it starts a statement, or an instance of it,
   * other than the last one's (each loop iteration gets its line). */
  private advance(offset: number): boolean {
    const rows = this.rows;
    if (!rows) return false;
    const before = this.current;
    while (this.next < rows.length && rows.data[rows.starts[this.next]!]! <= offset)
      this.current = this.next++;
    if (this.current < 0 || this.current === before) return false;
    const at = rows.starts[this.current]!;
    const stmt = rows.data[at + 1]!;
    const ops = rows.data.subarray(at + 2, rows.starts[this.current + 1]!);
    const instance = this.listing.ctx.instances?.(stmt, ops) ?? "";
    if (stmt === this.lastStmt && instance === this.lastInstance) return false;
    this.lastStmt = stmt;
    this.lastInstance = instance;
    return true;
  }

  begin(out: TextSink, offset: number, packet: Packet | undefined): void {
    if (this.advance(offset))
      out.text(statementLine(this.listing, this.lastStmt, this.lastInstance));
    this.notes.clear();
    if (packet) this.notes.note(packet);
  }

  value(f: CompiledField, v: unknown): string | undefined {
    if (f.type === "addr") return this.notes.name(f.name);
    if (f.spec.type === "uint" && f.spec.size === true && typeof v === "number") {
      let text = this.sizes.get(v);
      if (text === undefined) this.sizes.set(v, (text = formatSizeExact(v)));
      return text;
    }
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
      const ops = row.slice(2);
      const instance = this.listing.ctx.instances?.(stmt, ops) ?? "";
      out.source = {
        stmt,
        ...(at ? { line: at.line, col: at.col } : {}),
        ops,
        ...(text !== undefined ? { text: text.trim() } : {}),
        ...(instance !== "" ? { instance } : {}),
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

/** `; LINE [INSTANCE]: TEXT` (without the source: no `: TEXT`; outside loops or without the IR:
 * no `[INSTANCE]`) above the packets of statement `stmt`. */
function statementLine(listing: Listing, stmt: number, instance: string): string {
  let parts = listing.lines.get(stmt);
  if (parts === undefined) {
    const at = listing.ctx.stmts[stmt];
    const src = at ? listing.ctx.sourceLine?.(at.line)?.trim() : undefined;
    parts = !at ? ["", ""] : [`; ${at.line}`, src !== undefined ? `: ${src}\n` : "\n"];
    listing.lines.set(stmt, parts);
  }
  if (parts[0] === "") return "";
  return instance === "" ? parts[0] + parts[1] : `${parts[0]} [${instance}]${parts[1]}`;
}

/** The annotation fields of one disasm --json entry (schemas/disasm.schema.json). */
export interface EntryNotes {
  readonly source?: {
    readonly stmt: number;
    readonly line?: number;
    readonly col?: number;
    readonly ops: readonly number[];
    readonly text?: string;
    readonly instance?: string;
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
    lines.push(`# buffer ${bufferName(b)} at ${hexAddr(b.address)}, ${formatSizeExact(b.size)}`);
  for (const s of m.signals)
    lines.push(`# signal ${s.name}@${s.gpu} at ${hexAddr(s.address)}, ${signalStores(s.encoding)}`);
  for (const w of m.syncWords)
    lines.push(
      `# sync${w.id} at ${hexAddr(w.address)}: ${w.kind === "progress" ? `progress ${w.producer} -> ${w.consumer}` : `${w.kind} of ${w.queue}`}`,
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
