// Packet values -> dwords. Every field is range-checked against the table before it is packed:
// `validatePacket` reports problems as strings, `encodePacket`/`encodePackets` (and the emitter,
// through `valueOutsideField`) throw InternalError on them, because the lowering must have
// checked every user-controllable value (and reported a diagnostic) before asking for packets.
// Alignment rules are not encoding constraints; see packet-rules.ts.

import { InternalError } from "../../util/internal-error.js";
import { COMPILED_BY_KIND, pack, type CompiledField, type CompiledPacket } from "./bitfield.js";
import type { Packet } from "./packets.js";

const U64_MAX = (1n << 64n) - 1n;

function describe(v: unknown): string {
  if (typeof v === "bigint") return `${v}n`;
  if (Array.isArray(v)) return `array(${v.length})`;
  return JSON.stringify(v) ?? String(v);
}

function checkField(kind: string, f: CompiledField, v: unknown, out: string[]): void {
  const where = `${kind}.${f.name}`;
  if (v === undefined) {
    if (!f.optional) out.push(`${where} is missing`);
    return;
  }
  switch (f.type) {
    case "uint": {
      const max = f.mask + f.bias;
      if (typeof v !== "number" || !Number.isInteger(v) || v < f.bias || v > max)
        out.push(`${where} = ${describe(v)} is outside ${f.bias}..${max} (${f.width}-bit field)`);
      return;
    }
    case "bool":
      if (typeof v !== "boolean") out.push(`${where} = ${describe(v)} is not a boolean`);
      return;
    case "enum":
      if (typeof v !== "string" || !f.enumNames!.includes(v))
        out.push(
          `${where} = ${describe(v)} is not a ${f.spec.type === "enum" ? f.spec.enum.name : ""} value`,
        );
      return;
    case "addr": {
      const align = 2 ** f.lo;
      if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)
        out.push(`${where} = ${describe(v)} is not an address in 0..2^53-1`);
      else if (v % align !== 0)
        out.push(
          `${where} = 0x${v.toString(16)}: bits ${f.lo - 1}:0 are reserved (needs ${align}-byte alignment)`,
        );
      return;
    }
    case "u64":
      if (typeof v !== "bigint" || v < 0n || v > U64_MAX)
        out.push(`${where} = ${describe(v)} is not an unsigned 64-bit bigint`);
      return;
    case "words": {
      const max = f.mask + 1;
      if (!Array.isArray(v) || v.length < 1 || v.length > max)
        out.push(`${where} must be an array of 1..${max} dwords`);
      else if (
        v.some((x) => typeof x !== "number" || !Number.isInteger(x) || x < 0 || x > 0xffffffff)
      )
        out.push(`${where} holds a value that is not a dword (0..0xFFFFFFFF)`);
      return;
    }
  }
}

/** Everything that keeps `p` from being encoded (empty when it can be). Never throws. */
export function validatePacket(p: Packet): string[] {
  const rec = p as unknown as Record<string, unknown> | null;
  if (typeof rec !== "object" || rec === null) return [`not a packet: ${describe(p)}`];
  const kind = rec["kind"];
  const c =
    typeof kind === "string"
      ? (COMPILED_BY_KIND as Record<string, CompiledPacket>)[kind]
      : undefined;
  if (c === undefined) return [`unknown packet kind ${describe(kind)}`];
  const out: string[] = [];
  for (const f of c.fields) checkField(c.kind, f, rec[f.name], out);
  for (const key of Object.keys(rec))
    if (key !== "kind" && rec[key] !== undefined && !c.fields.some((f) => f.name === key))
      out.push(`${c.kind} has no field '${key}'`);
  return out;
}

function lengthOf(c: CompiledPacket, p: Packet): number {
  if (c.fixedLength >= 0) return c.fixedLength;
  if (p.kind === "nop") return p.dwords;
  if (p.kind === "write_linear") return c.fixedDwords + p.data.length;
  throw new InternalError(`no length rule for ${p.kind}`);
}

function checked(p: Packet): { c: CompiledPacket; length: number } {
  // Fast path: the table's check (CompiledPacket.valid); the slow validator only explains a failure.
  const c = (COMPILED_BY_KIND as Readonly<Record<string, CompiledPacket>>)[
    (p as { kind?: unknown } | null)?.kind as string
  ];
  if (c === undefined || !c.valid(p)) {
    const problems = validatePacket(p);
    throw new InternalError(
      `cannot encode packet: ${problems.join("; ") || "invalid (the table's check)"}`,
    );
  }
  return { c, length: lengthOf(c, p) };
}

/** The dwords of one packet. Throws InternalError if a field is out of range. */
export function encodePacket(p: Packet): number[] {
  const { c, length } = checked(p);
  const out = new Array<number>(length);
  pack(c, p, out, 0, length);
  return out;
}

/** The error of a packet writer (`c.write`, or one of `c.writerOf`) that found a value outside
 *  its field: a dmac bug. The emitter writes each packet's field values (bitfield.ts `read`'s
 *  slots) straight into its queue's words as it builds it, and throws this when a write fails. */
export function valueOutsideField(c: CompiledPacket, values: Float64Array): InternalError {
  const fields = [...c.slots].map(([name, k]) => `${name} = ${values[k]}`).join(", ");
  return new InternalError(`cannot encode ${c.kind} (${fields}): a value is outside its field`);
}

/** The dwords of a packet sequence, back to back. Throws InternalError if a field is out of range. */
export function encodePackets(ps: readonly Packet[]): Uint32Array {
  const sized = ps.map(checked);
  let total = 0;
  for (const s of sized) total += s.length;
  const out = new Uint32Array(total);
  let at = 0;
  for (let i = 0; i < ps.length; i++) {
    const { c, length } = sized[i]!;
    pack(c, ps[i]!, out, at, length);
    at += length;
  }
  return out;
}
