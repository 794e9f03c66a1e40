// Random small IR programs for the property tests (deps, reordering): copies, broadcasts, swaps,
// fills, notifies and `when` blocks over few ranks, buffers and bytes, so that overlaps are
// frequent. The shape parameters let each test bias what it stresses; the draws from `rnd` are
// in a fixed order, so a seed always gives the same program.
import type { IrModule } from "../../../src/ir/ir.js";
import { buildIr } from "./build-ir.js";

interface Reg {
  name: string;
  rank: number;
  off: number;
  len: number;
}
const overlaps = (a: Reg, b: Reg) =>
  a.name === b.name && a.rank === b.rank && a.off < b.off + b.len && b.off < a.off + a.len;
const text = (r: Reg) => `${r.name}@${r.rank}[${r.off} +: ${r.len}]`;

export interface ProgramShape {
  /** Ranks: 2 + a draw below this. */
  readonly extraRanks: number;
  /** Buffer names to choose from, and how many of them at least. */
  readonly names: readonly string[];
  readonly minBuffers: number;
  /** Bytes per buffer. */
  readonly size: number;
  /** Statements: minOps + a draw below opsRange. Region lengths: 1 + a draw below maxLen. */
  readonly minOps: number;
  readonly opsRange: number;
  readonly maxLen: number;
  /** Half the regions start at byte 0 (prefixes of one another: dense overlaps). */
  readonly prefixes: boolean;
  /** Weight of plain copies (broadcasts, swaps and fills weigh 2, notify and `when` 1 each). */
  readonly copyWeight: number;
}

export function randomProgram(rnd: () => number, shape: ProgramShape): IrModule {
  const int = (n: number) => Math.floor(rnd() * n);
  const ranks = 2 + int(shape.extraRanks);
  const names = shape.names.slice(
    0,
    shape.minBuffers + int(shape.names.length - shape.minBuffers + 1),
  );
  const size = shape.size;
  const buffers = Object.fromEntries(names.map((n) => [n, size]));
  const region = (len: number): Reg => ({
    name: names[int(names.length)]!,
    rank: int(ranks),
    off: shape.prefixes && rnd() < 0.5 ? 0 : int(size - len + 1),
    len,
  });
  const cw = shape.copyWeight;
  const lines: string[] = [];
  const count = shape.minOps + int(shape.opsRange);
  let waits = 0;
  while (lines.length < count) {
    const len = 1 + int(shape.maxLen);
    const k = int(cw + 8);
    if (k < cw) {
      const s = region(len);
      const d = region(len);
      if (!overlaps(s, d)) lines.push(`copy ${text(s)} -> ${text(d)}`);
    } else if (k < cw + 2) {
      const s = region(len);
      const d1 = region(len);
      const d2 = region(len);
      if (!overlaps(s, d1) && !overlaps(s, d2) && !overlaps(d1, d2))
        lines.push(`copy ${text(s)} -> ${text(d1)}, ${text(d2)}`);
    } else if (k < cw + 4) {
      const x = region(len);
      const y = region(len);
      if (!overlaps(x, y)) lines.push(`swap ${text(x)} <-> ${text(y)}`);
    } else if (k < cw + 6) {
      lines.push(`fill ${text(region(len))} with ${int(4)}`);
    } else if (k === cw + 6) {
      lines.push(`notify f@${int(ranks)}`);
    } else if (waits === 0) {
      // A guarded block, waiting on a signal raised from outside.
      lines.push(`when g@${int(ranks)} >= 1 {`);
      waits++;
    } else {
      lines.push("}");
      waits--;
    }
  }
  if (waits > 0) lines.push("}");
  return buildIr({ ranks, buffers, signals: ["f", "g"], lines }).m;
}
