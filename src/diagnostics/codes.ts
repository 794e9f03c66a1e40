// THE catalogue of diagnostic codes. Every user-facing diagnostic dmac can report is one entry
// here: its severity, the phase that reports it, a one-line title, a typed message function and a
// documentation block (what it means / why / example / fix) that `dmac explain CODE` prints and
// docs/diagnostics.md is generated from.
//
// Codes are allocated in ranges by phase and never reused (a retired code stays, with
// status "removed"):
//   1xxx lexing and parsing          2xxx names and types (symbolic checks)
//   3xxx instantiation, IR, verify   4xxx back end, packet encoding, target limits
//   5xxx command line and files      6xxx executor (simulated node)
// Add new codes at the end of their range's section.

export type Phase =
  "lex" | "parse" | "check" | "instantiate" | "verify" | "backend" | "cli" | "sim";

export interface DiagnosticSpec {
  readonly severity: "error" | "warning";
  readonly phase: Phase;
  readonly title: string;
  readonly status?: "stable" | "removed";
  // Contravariant parameter position: any message function with typed arguments fits.
  readonly message: (...args: never[]) => string;
  /** Markdown: what it means, why, an example, how to fix it. */
  readonly doc: string;
}

export const DIAGNOSTICS = {
  // ---- 1xxx: lexing and parsing -------------------------------------------------------------
  DMAC1001: {
    severity: "error",
    phase: "lex",
    title: "unexpected character",
    message: (ch: string) => `unexpected character ${ch}`,
    doc: `A character that cannot start any token of the language.

Example: \`copy buf@0 $ buf@1\`. Fix: remove the character or replace it with the operator you meant.`,
  },
  DMAC1002: {
    severity: "error",
    phase: "lex",
    title: "unterminated block comment",
    message: () => "unterminated block comment",
    doc: `A \`/*\` comment that is never closed with \`*/\`. Block comments do not nest.

Fix: add \`*/\` where the comment should end.`,
  },
  DMAC1003: {
    severity: "error",
    phase: "lex",
    title: "unknown size unit",
    message: (unit: string) => `unknown size unit '${unit}'`,
    doc: `Size literals take the binary units \`B\`, \`KiB\`, \`MiB\`, \`GiB\` and \`TiB\`.
\`KB\`/\`MB\`/\`GB\` are rejected on purpose: people mean 1000 or 1024 by them, and a DMA
schedule that is off by 2.4 % writes past its buffer.

Example: \`chunk: bytes = 4KB\`. Fix: \`4KiB\` (4096 bytes), or \`4000B\` if you meant 4000.`,
  },
  DMAC1004: {
    severity: "error",
    phase: "lex",
    title: "number too large",
    message: (text: string) => `number ${text} is larger than 2^53 - 1`,
    doc: `dmac computes sizes and offsets exactly in integers up to 2^53 - 1 (8 PiB), far above
any GPU memory. A literal above that cannot be represented.`,
  },
  DMAC1005: {
    severity: "error",
    phase: "lex",
    title: "malformed hex literal",
    message: (text: string, detail: string) => `malformed hex literal '${text}': ${detail}`,
    doc: `A number that starts with \`0x\` must continue with hex digits (\`0-9\`, \`a-f\`, \`A-F\`),
optionally separated by \`_\` after the first digit, and nothing else: no size unit, no other
letters.

Example: \`0x\`, \`0xG\`, \`0x_ff\` or \`0x10KiB\`. Fix: write the digits (\`0xff\`); a size is
decimal with its unit (\`16KiB\`), or a hex count times a unit (\`0x10 * 1KiB\`).`,
  },
  DMAC1010: {
    severity: "error",
    phase: "parse",
    title: "syntax error",
    message: (expected: string, found: string) => `expected ${expected}, found ${found}`,
    doc: `The parser met a token that cannot continue the construct it was reading. It reports the
error, skips ahead to a point where it can resume (the next statement or closing brace), and
continues, so one run reports several syntax errors.

For the common mistakes the error says how to write it, and where the edit is certain it offers
it as a fix (\`help:\` under the error, \`fix\` in \`--format json\`, a quick fix in an editor):
a misspelt keyword (\`cpy\` -> \`copy\`, \`for r in rank\` -> \`ranks\`), an expression after
\`@\` without parentheses (\`buf@r+1[...]\` -> \`buf@(r+1)[...]\`), \`=>\` or \`to\` for \`->\`,
\`<=>\` for \`<->\`, \`[0:n]\` for \`[0..n]\`, a missing \`in\`, \`sdma 2\` for \`sdma(2)\`, \`=\`
for \`==\` in a condition, a size unit apart from its number, \`let\` at file level.`,
  },
  DMAC1011: {
    severity: "error",
    phase: "lex",
    title: "unterminated string",
    message: () => "unterminated string literal",
    doc: `A string literal (used for target description paths) that does not end on its line.`,
  },
  DMAC1012: {
    severity: "error",
    phase: "parse",
    title: "source file too large",
    message: (size: string, limit: string) =>
      `source file is ${size}, more than the limit of ${limit}`,
    doc: `dmac refuses source files above a size limit (default 16 MiB, \`--max-source-bytes\`) so
that a wrong path (a binary, a log) gives a clear error instead of a long wait.`,
  },
  DMAC1013: {
    severity: "error",
    phase: "parse",
    title: "nesting too deep",
    message: (limit: number) => `nesting is deeper than the limit of ${limit} levels`,
    doc: `Blocks and expressions may nest at most a fixed number of levels (default 200,
\`--max-nesting\`); deeper input is almost certainly generated by mistake and would exhaust the stack.`,
  },
  DMAC1014: {
    severity: "error",
    phase: "parse",
    title: "misplaced target",
    message: (detail: string) => detail,
    doc: `A file has at most one \`target\` declaration, and it comes before the first schedule
(the target decides what \`ranks\` means for everything after it).

Example: a \`target mi300x\` after a schedule. Fix: move it to the top of the file.`,
  },
  DMAC1015: {
    severity: "error",
    phase: "parse",
    title: "unclosed block",
    message: () => "this '{' is never closed",
    doc: `A block's \`{\` has no matching \`}\`. The parser only notices at the end of the file
(or at the next \`schedule\`), so the error points at the \`{\` that is left open, with the
place the parser gave up as a note. Where the code is indented, braces are matched by
indentation: a \`}\` at the start of a line closes the \`{\` whose line is indented the same,
so the block reported is the one whose \`}\` went missing, not the outermost one.

Example:

\`\`\`
schedule s() {
  for r in ranks {
    copy buf@r -> buf@0
}
\`\`\`

Fix: add \`}\` where the block should end (here, after the copy).`,
  },

  // ---- 2xxx: names and types ---------------------------------------------------------------
  DMAC2001: {
    severity: "error",
    phase: "check",
    title: "unknown name",
    message: (name: string) => `cannot find '${name}' in this scope`,
    doc: `A name that is not a parameter, constant, loop variable, buffer or signal visible here.
Names are visible from their declaration to the end of the enclosing block.`,
  },
  DMAC2002: {
    severity: "error",
    phase: "check",
    title: "duplicate declaration",
    message: (name: string) => `'${name}' is already declared in this scope`,
    doc: `Two declarations of one name in the same scope (two buffers, a parameter and a constant,
two loop variables of one \`for\`). Rename one of them.`,
  },
  DMAC2003: {
    severity: "error",
    phase: "check",
    title: "type mismatch",
    message: (expected: string, found: string) => `expected ${expected}, found ${found}`,
    doc: `An expression has a different type from the one its position needs: a region offset must
be \`bytes\`, a rank must be \`int\`, a condition must be \`bool\`.`,
  },
  DMAC2004: {
    severity: "error",
    phase: "check",
    title: "invalid operand types",
    message: (op: string, left: string, right: string) =>
      `operator '${op}' cannot be applied to ${left} and ${right}`,
    doc: `Arithmetic keeps byte counts and plain integers apart:
\`bytes + bytes -> bytes\`, \`bytes * int -> bytes\`, \`bytes / int -> bytes\` (exact),
\`bytes / bytes -> int\`, \`bytes % bytes -> bytes\`; \`int + bytes\` is an error.

Example: \`r + chunk\`. Fix: \`r * chunk\` if you meant the offset of chunk \`r\`, or
\`r * 1B + chunk\` if you really mean to add a count of bytes.`,
  },
  DMAC2005: {
    severity: "error",
    phase: "check",
    title: "condition is not bool",
    message: (found: string) => `condition must be bool, found ${found}`,
    doc: `\`if\`, \`where\` and \`&&\`/\`||\`/\`!\` take \`bool\` operands; an integer is not a truth value.
Fix: compare it, e.g. \`if n != 0\`.`,
  },
  DMAC2006: {
    severity: "error",
    phase: "check",
    title: "unknown target",
    message: (name: string) => `unknown target '${name}'`,
    doc: `\`target NAME\` names a built-in machine model (\`mi300x\`); \`target "path.json"\` names a
target description file relative to the source file.`,
  },
  DMAC2007: {
    severity: "error",
    phase: "check",
    title: "bad collective",
    message: (detail: string) => detail,
    doc: `\`implements\` names one of the collectives dmac can prove: \`all_gather(src, dst)\`,
\`all_gather_inplace(buf)\`, \`all_to_all(src, dst)\`, \`all_to_all_inplace(buf)\`,
\`broadcast(buf, root)\` or \`broadcast(src, dst, root)\`, \`scatter(src, dst, root)\`,
\`gather(src, dst, root)\`, \`send_recv(src, dst, from, to)\`, \`permute(src, dst, shift)\`, with
buffers and integer arguments in that order. For anything else, state the postcondition with \`ensure\`.`,
  },
  DMAC2008: {
    severity: "warning",
    phase: "check",
    title: "unused name",
    message: (kind: string, name: string) => `${kind} '${name}' is never used`,
    doc: `A parameter, constant, buffer, signal or loop variable that nothing refers to. Often a typo
elsewhere. Prefix the name with \`_\` to say it is unused on purpose.`,
  },
  DMAC2009: {
    severity: "error",
    phase: "check",
    title: "unknown parameter in -D",
    message: (name: string, schedule: string) =>
      `schedule '${schedule}' has no parameter '${name}'`,
    doc: `\`-D name=value\` sets a schedule parameter; the name must be one of the schedule's parameters.`,
  },
  DMAC2010: {
    severity: "error",
    phase: "check",
    title: "bad -D value",
    message: (name: string, detail: string) => `bad value for -D ${name}: ${detail}`,
    doc: `The value of \`-D name=value\` is a constant expression of the parameter's type, e.g.
\`-D chunk=1MiB\`, \`-D chunks=16\`, \`-D verbose=true\`.`,
  },
  DMAC2011: {
    severity: "error",
    phase: "check",
    title: "not a buffer",
    message: (name: string, kind: string) => `'${name}' is a ${kind}, not a buffer`,
    doc: `A region \`NAME@rank[...]\` must start with a buffer declared with \`buffer\`.`,
  },
  DMAC2012: {
    severity: "error",
    phase: "check",
    title: "not a signal",
    message: (name: string, kind: string) => `'${name}' is a ${kind}, not a signal`,
    doc: `\`when\` and \`notify\` take a flag declared with \`signal NAME\`.`,
  },
  DMAC2013: {
    severity: "error",
    phase: "check",
    title: "inexact division",
    message: (left: string, right: string) => `${left} is not divisible by ${right}`,
    doc: `\`bytes / int\` must divide exactly: dmac never rounds a byte count silently. Where both
operands are known without instantiating, the check runs here; otherwise DMAC3006 reports it.`,
  },
  DMAC2014: {
    severity: "error",
    phase: "check",
    title: "no schedule",
    message: () => "the file declares no schedule",
    doc: `A \`.dmac\` file must declare at least one \`schedule\`.`,
  },
  DMAC2015: {
    severity: "error",
    phase: "check",
    title: "bad loop range",
    message: (detail: string) => detail,
    doc: `A \`for\` variable ranges over \`A..B\` (half-open, \`A\` included, \`B\` excluded),
\`A..B step S\`, or \`ranks\` (all GPUs of the target, \`0..ranks\`). Bounds and step are \`int\`.`,
  },
  DMAC2016: {
    severity: "error",
    phase: "check",
    title: "parameter has no value",
    message: (name: string) => `parameter '${name}' has no default; set it with -D ${name}=VALUE`,
    doc: `A parameter without a default must be given on the command line.`,
  },
  DMAC2017: {
    severity: "error",
    phase: "check",
    title: "declaration not allowed here",
    message: (what: string) => `${what} must be declared at the top level of a schedule`,
    doc: `Buffers and signals are allocations that exist for the whole schedule, so they are declared
at the top level of the schedule body, not inside \`for\`, \`if\` or \`when\`.`,
  },
  DMAC2018: {
    severity: "warning",
    phase: "check",
    title: "shadowed name",
    message: (name: string) => `'${name}' shadows an outer declaration`,
    doc: `A declaration hides one of the same name in an enclosing scope. Legal, but often a mistake.`,
  },
  DMAC2019: {
    severity: "error",
    phase: "check",
    title: "several schedules",
    message: (names: string) =>
      `the file declares several schedules (${names}); choose one with --schedule`,
    doc: `Commands that instantiate a schedule need to know which one when a file has several.`,
  },
  DMAC2020: {
    severity: "error",
    phase: "check",
    title: "unknown schedule",
    message: (name: string) => `no schedule named '${name}'`,
    doc: `\`--schedule NAME\` must name a schedule declared in the file.`,
  },
  DMAC2021: {
    severity: "error",
    phase: "check",
    title: "wrong number of arguments",
    message: (fn: string, found: number) => `${fn} needs at least 2 arguments, found ${found}`,
    doc: `\`min(a, b, ...)\` and \`max(a, b, ...)\` take two or more arguments of one type
(\`int\` or \`bytes\`). With a single argument, write the argument itself.`,
  },
  DMAC2022: {
    severity: "error",
    phase: "check",
    title: "default is not a constant",
    message: (name: string) => `the default of parameter '${name}' is not a constant`,
    doc: `A parameter default must be computable before the schedule runs: literals, \`ranks\`,
file-level constants and earlier parameters, without dividing by zero or leaving the exact integer
range. Example: \`n: int = 1 / 0\`.`,
  },

  DMAC2023: {
    severity: "error",
    phase: "check",
    title: "too many destinations",
    message: (found: number) =>
      `a copy has one destination, or two (a broadcast); this one has ${found}`,
    doc: `\`copy SRC -> DST\` copies to one region; \`copy SRC -> DST1, DST2\` is a broadcast, which
one SDMA packet writes to two destinations. No packet writes three or more, and dmac does not
split such a copy silently: write one statement per destination or per pair.

Example: \`copy a@0 -> a@1, a@2, a@3\`. Fix: \`copy a@0 -> a@1, a@2\` and \`copy a@0 -> a@3\`
(or a loop: \`for p in 1..4 { copy a@0 -> a@p }\`, which \`-O2\` may pair into broadcasts).`,
  },

  // ---- 3xxx: instantiation, IR and verification -------------------------------------------
  DMAC2040: {
    severity: "error",
    phase: "check",
    title: "'host' used as a value",
    message: () => "'host' names the host memory, not a value",
    doc: `\`host\` is the pinned host memory that schedules copy to and from. It may stand only where a
place is expected: a buffer's \`on host\` and a region's \`@host\` (\`staging@host[0 +: 4KiB]\`).
Anywhere else (arithmetic, a loop bound, \`by host\`, \`signal s on host\`) it has no value.

Example: \`let r = host + 1\`. Fix: use a rank (an \`int\`) there; to copy from host memory write
\`copy staging@host[...] -> buf@r[...]\`.`,
  },
  DMAC2041: {
    severity: "error",
    phase: "check",
    title: "`notify` on a thermometer flag",
    message: (name: string) =>
      `'${name}' is a thermometer flag: notify adds 1 to its word, which breaks the bit code outside code reads`,
    doc: `A flag declared \`thermometer\` (\`signal ready on 0 thermometer\`) holds k as 2^k - 1
(bits 0..k-1 set), and \`when ready@r >= V\` tests bit V-1. \`notify\` raises a flag by adding 1 to
its word (an atomic add): on a thermometer word that turns 1 (k = 1) into 2 (k = 0 with bit 1
set), not into 3.

Example: \`signal done on 0 thermometer\` then \`notify done@0\`. Fix: drop \`thermometer\` from the
flag the schedule notifies (a count flag: outside code reads the number of notifies); a flag
outside code raises for the schedule to wait on is a separate \`signal\`.`,
  },
  DMAC2042: {
    severity: "error",
    phase: "check",
    title: "thermometer flag compared with other than >= or >",
    message: (cond: string) =>
      `\`when ${cond}\`: a thermometer flag is waited for with >= or > (a test of one bit of its word)`,
    doc: `A thermometer flag's word is 2^k - 1 for the value k (docs/language.md, "Signals"), and
\`when F >= V\` (\`> V\` as \`>= V+1\`) polls bit V-1. Another compare (\`== != < <=\`) on the value k
has no single-bit test, and a compare of the raw word would not mean what the source says.

Example: \`signal ready on 0 thermometer\` then \`when ready@0 == 2\`. Fix: \`when ready@0 >= 2\`, or
declare the flag without \`thermometer\` (a count) and compare its value.`,
  },
  DMAC2043: {
    severity: "error",
    phase: "instantiate",
    title: "thermometer value outside 1..32",
    message: (cond: string) =>
      `\`when ${cond}\`: a thermometer flag counts 1..32 (one bit of its 32-bit word per value)`,
    doc: `A thermometer flag holds k as 2^k - 1 in a 32-bit word, so it counts to 32 at most, and
\`when F >= V\` polls bit V-1: V (after \`> V\` became \`>= V+1\`) must be 1..32. The message gives the
loop variables' values of the first instance that is outside.

Example: \`when ready@0 >= k + 1\` in \`for k in 0..pieces\` with \`-D pieces=64\`. Fix: keep V within
1..32 (fewer pieces, or one flag per 32 values), or declare the flag without \`thermometer\` (a
count) and compile with \`--sync aggressive\`, which polls \`>=\` on a count.`,
  },
  DMAC3001: {
    severity: "error",
    phase: "instantiate",
    title: "region out of bounds",
    message: (region: string, size: string) =>
      `region ${region} is outside the buffer (size ${size})`,
    doc: `A region \`buf@r[lo .. hi]\` or \`buf@r[lo +: len]\` must lie inside the buffer:
0 <= lo <= hi <= size. The message names the loop variables' values at the failing instance.`,
  },
  DMAC3002: {
    severity: "error",
    phase: "instantiate",
    title: "length mismatch",
    message: (src: string, dst: string) => `source is ${src} but destination is ${dst}`,
    doc: `\`copy\`, \`swap\` and \`ensure\` need regions of the same length on both sides.`,
  },
  DMAC3003: {
    severity: "error",
    phase: "instantiate",
    title: "rank out of range",
    message: (rank: number, ranks: number) =>
      `rank ${rank} is outside the target (ranks 0..${ranks - 1})`,
    doc: `A rank (\`buf@r\`, \`by r\`, \`on r\`) must name a GPU of the target.`,
  },
  DMAC3004: {
    severity: "error",
    phase: "instantiate",
    title: "no such engine",
    message: (engine: number, count: number) =>
      `engine sdma(${engine}) does not exist (the target has engines 0..${count - 1})`,
    doc: `\`on sdma(E)\` must name an engine of the driving GPU.`,
  },
  DMAC3005: {
    severity: "error",
    phase: "instantiate",
    title: "engine cannot serve this transfer",
    message: (engine: number, detail: string) => `engine sdma(${engine}) ${detail}`,
    doc: `On MI300X engines 0 and 1 serve host<->GPU transfers; engines 2..15 serve GPU<->GPU
transfers over xGMI. A peer copy pinned to engine 0 or 1 is rejected.`,
  },
  DMAC3006: {
    severity: "error",
    phase: "instantiate",
    title: "division with a remainder",
    message: (left: string, right: string) => `${left} is not divisible by ${right}`,
    doc: `\`bytes / int\` must divide exactly at the instantiated values.`,
  },
  DMAC3007: {
    severity: "error",
    phase: "instantiate",
    title: "zero-length operation",
    message: (what: string) => `${what} moves zero bytes`,
    doc: `A copy, swap or fill of zero bytes is almost always an off-by-one in the region; dmac
rejects it rather than emit a packet with a count of -1.`,
  },
  DMAC3008: {
    severity: "error",
    phase: "instantiate",
    title: "source overlaps destination",
    message: (src: string, dst: string) => `source ${src} overlaps destination ${dst}`,
    doc: `A copy whose source and destination share bytes has no well-defined result on a DMA engine
(it may read bytes it already wrote).`,
  },
  DMAC3009: {
    severity: "error",
    phase: "instantiate",
    title: "swap halves overlap",
    message: (a: string, b: string) => `swap halves ${a} and ${b} overlap`,
    doc: `The two regions of a \`swap\` must be disjoint.`,
  },
  DMAC3010: {
    severity: "error",
    phase: "instantiate",
    title: "too many operations",
    message: (limit: string) => `the schedule instantiates more than ${limit} operations`,
    doc: `Instantiation stops at a limit (default 2,000,000, \`--max-ops\`) instead of exhausting memory.
Raise the limit if the schedule really is that large.`,
  },
  DMAC3011: {
    severity: "error",
    phase: "instantiate",
    title: "division by zero",
    message: () => "division by zero",
    doc: `A \`/\` or \`%\` whose right operand is zero at the instantiated values.`,
  },
  DMAC3012: {
    severity: "error",
    phase: "instantiate",
    title: "arithmetic overflow",
    message: () => "value exceeds 2^53 - 1",
    doc: `An intermediate value left the exactly representable range.`,
  },
  DMAC3013: {
    severity: "error",
    phase: "instantiate",
    title: "negative offset or size",
    message: (what: string, value: number, min: number) =>
      `${what} must be at least ${min}, found ${value}`,
    doc: `Region offsets and lengths cannot be negative (\`buf@r[lo .. hi]\` needs lo <= hi), and a
buffer holds at least one byte.

Example: \`copy a@0[r * 4KiB - 4KiB +: 4KiB] -> b@1\` at r = 0. Fix: guard the instance with
\`where\`/\`if\`, or correct the offset.`,
  },
  DMAC3014: {
    severity: "error",
    phase: "instantiate",
    title: "broadcast destinations overlap",
    message: (a: string, b: string) => `broadcast destinations ${a} and ${b} overlap`,
    doc: `The two destinations of \`copy SRC -> D1, D2\` must be disjoint.`,
  },
  DMAC3015: {
    severity: "error",
    phase: "instantiate",
    title: "bad loop step",
    message: (step: number) => `loop step must be positive, found ${step}`,
    doc: `\`for x in A..B step S\` needs S >= 1.`,
  },
  DMAC3016: {
    severity: "error",
    phase: "instantiate",
    title: "fill value out of range",
    message: (value: number) => `fill value ${value} is not a byte (0..255)`,
    doc: `\`fill DST with V\` writes the byte V to every byte of DST.`,
  },
  DMAC3017: {
    severity: "error",
    phase: "instantiate",
    title: "unsatisfiable wait",
    message: (detail: string) => `this wait can never be satisfied: ${detail}`,
    doc: `Signals are unsigned 32-bit words that only grow. A \`when\` whose condition no value
can meet (e.g. \`>= 2^32\`) would block forever, and so would one inside a \`when\` on the same
signal that has already seen a larger value: in \`when f@1 >= 5 { when f@1 <= 1 { ... } }\` the
inner wait starts once \`f@1\` is at least 5, and it never comes back down to 1.`,
  },
  DMAC3018: {
    severity: "error",
    phase: "instantiate",
    title: "circular wait",
    message: (detail: string) => `circular wait: ${detail}`,
    doc: `A \`when\` waits for a signal that only this schedule raises, with \`notify\`s that
come after the wait in program order: nothing can ever release it.`,
  },
  DMAC3019: {
    severity: "error",
    phase: "instantiate",
    title: "loop too long",
    message: (what: string, count: string, limit: string) =>
      `${what} ${count} times, more than the limit of ${limit}`,
    doc: `One \`for\` (all its variables together) may not run more iterations than the operation limit
(\`--max-ops\`, default 2,000,000), and all loops of a schedule together may not run more than four
times that limit, even if they produce no operations: this stops a mistyped bound
(\`0..n * 1000000\`) quickly instead of running for hours.

Fix: check the loop bounds; raise \`--max-ops\` if the schedule really is that large.`,
  },
  DMAC3020: {
    severity: "error",
    phase: "verify",
    title: "postcondition does not hold",
    message: (collective: string, detail: string) =>
      `schedule does not implement ${collective}: ${detail}`,
    doc: `Running the operations in program order does not leave the buffers as the collective
requires. When one mistake explains most of the wrong ranges, the message leads with it ("likely
cause: ...": ranges never written, data that never left its rank, the right rank's bytes from the
wrong offset, copies that read a chunk after an earlier copy overwrote it, ...). It then names the
first wrong destination ranges, what each holds, what it should hold, and the operation that last
wrote it.`,
  },
  DMAC3021: {
    severity: "error",
    phase: "verify",
    title: "ensure does not hold",
    message: (detail: string) => `ensure does not hold: ${detail}`,
    doc: `\`ensure DST == SRC\` states that at the end of the schedule DST holds what SRC held at the
start (or \`ensure DST == V\`: every byte is V). Running the schedule in program order gives
something else.`,
  },
  DMAC3022: {
    severity: "error",
    phase: "verify",
    title: "buffers do not fit the collective",
    message: (detail: string) => detail,
    doc: `The buffers named by \`implements\` must have the sizes the collective needs, e.g. for
\`all_gather(src, dst)\` the size of \`dst\` is \`ranks\` times the size of \`src\`.`,
  },
  DMAC3023: {
    severity: "error",
    phase: "instantiate",
    title: "buffer or signal missing on a rank",
    message: (what: string, rank: number) => `${what} does not exist on rank ${rank}`,
    doc: `A buffer or signal declared \`on RANK\` exists only on that rank; a region or flag
on another rank names memory that is not there.

Example: \`buffer staging: 1MiB on 0\` then \`copy staging@1 -> ...\`. Fix: use rank 0, or declare
the buffer without \`on\` so that every rank has one.`,
  },
  DMAC3024: {
    severity: "error",
    phase: "instantiate",
    title: "too many dependencies",
    message: (limit: string) =>
      `the operations depend on one another through more than ${limit} edges; this operation crosses the limit`,
    doc: `Dependency inference gives each operation an edge to every earlier operation it must follow
(the last writer of each piece it reads, the readers of what it overwrites). A buffer written in
many small pieces and then read whole many times makes these quadratic: 10,000 one-byte fills
followed by 10,000 copies of the whole buffer are 10^8 edges. dmac stops at 8 edges per allowed
operation (16,000,000 with the default \`--max-ops\`; raising \`--max-ops\` raises it) instead of
exhausting memory, and points at the operation that crossed the limit. Fix: read the buffer once
into a staging copy, or read it in the pieces it was written in.`,
  },
  DMAC3025: {
    severity: "error",
    phase: "verify",
    title: "postcondition check too large",
    message: (limit: string) =>
      `checking the postconditions moves more than ${limit} pieces of provenance; this operation crosses the limit`,
    doc: `To prove \`implements\` and \`ensure\`, dmac runs the operations in program order on the
provenance of every byte range. Copying a buffer made of n separately written pieces moves n
pieces; doing that n times moves n^2 and keeps them. dmac stops at 8 pieces per allowed operation
(16,000,000 with the default \`--max-ops\`; raising \`--max-ops\` raises it) instead of exhausting
memory, and points at the operation that crossed the limit. Fix: write the buffer in fewer, larger
pieces before copying it around.`,
  },

  // ---- 4xxx: back end and target limits -----------------------------------------------------
  DMAC3040: {
    severity: "error",
    phase: "instantiate",
    title: "host buffer and GPU rank mixed up",
    message: (what: string) => what,
    doc: `A buffer declared \`on host\` lives in pinned host memory and is named \`NAME@host\`; a
buffer without \`on host\` lives on GPUs and is named \`NAME@RANK\`. A region that names one as
the other is this error, and so is an operation the host cannot take part in: a copy from host
memory to host memory (no DMA engine is involved: use memcpy), a fill, swap or broadcast that
writes host memory, or \`by R\` naming a GPU that is neither end of a host<->GPU copy.

Example: \`buffer staging: 1MiB on host\` then \`copy staging@0 -> ...\`. Fix: write \`staging@host\`.`,
  },
  DMAC4001: {
    severity: "error",
    phase: "backend",
    title: "broadcast alignment",
    message: (a: string, b: string) =>
      `broadcast destinations ${a} and ${b} differ in their low 5 address bits`,
    doc: `A COPY_LINEAR broadcast packet needs both destination addresses to share bits 4:0
(ROCr asserts \`kDstAlignMask_ = 0x1F\`). Fix: align the destination offsets the same way modulo 32.`,
  },
  DMAC4002: {
    severity: "error",
    phase: "backend",
    title: "swap alignment",
    message: (addr: string) => `swap address ${addr} is not 64-byte aligned`,
    doc: `COPY_SWAP on gfx942 needs 64-byte aligned addresses (and lengths).`,
  },
  DMAC4003: {
    severity: "error",
    phase: "backend",
    title: "timestamp alignment",
    message: (addr: string) => `timestamp slot ${addr} is not 32-byte aligned`,
    doc: `TIMESTAMP slots must be 32-byte aligned.`,
  },
  DMAC4004: {
    severity: "error",
    phase: "backend",
    title: "dword alignment",
    message: (what: string, addr: string) => `${what} address ${addr} is not dword aligned`,
    doc: `POLL_REGMEM and FENCE addresses must be 4-byte aligned.`,
  },
  DMAC4005: {
    severity: "error",
    phase: "backend",
    title: "field overflow",
    message: (field: string, value: string, bits: number) =>
      `${field} = ${value} does not fit in ${bits} bits`,
    doc: `A packet field would not hold the value the schedule needs.`,
  },
  DMAC4006: {
    severity: "error",
    phase: "backend",
    title: "packet stream too large",
    message: (queue: string, size: string, limit: string) =>
      `queue ${queue} needs ${size}, more than ${limit}`,
    doc: `A queue's packet stream exceeds the configured limit (\`--max-stream-bytes\`).`,
  },
  DMAC4007: {
    severity: "error",
    phase: "backend",
    title: "address alignment",
    message: (what: string, addr: string, align: number) =>
      `${what} address ${addr} is not ${align}-byte aligned`,
    doc: `A packet address breaks an alignment rule of the reference other than the ones with their
own code: 64-bit ATOMIC operations and SEM_MEM_INCR need 8-byte aligned addresses, an
INDIRECT_BUFFER base 32-byte alignment. Fix: align the signal or buffer offset.`,
  },
  DMAC4008: {
    severity: "error",
    phase: "backend",
    title: "memory layout does not fit",
    message: (region: string, size: string, limit: string) =>
      `the allocations in ${region} need ${size}, more than its window of ${limit}`,
    doc: `The layout places each GPU's buffers, signals and sync words in a window of its own
(default 256 GiB, starting at 0x7000_0000_0000 + gpu x window) and the host completion signals in a
host window. A schedule whose buffers on one GPU exceed the window cannot be laid out.

Fix: make the buffers smaller, or give a larger window in the layout configuration.`,
  },
  DMAC4009: {
    severity: "warning",
    phase: "backend",
    title: "-O2 plan search stopped early",
    message: (budget: string, evaluated: number, total: number, kept: string) =>
      `the -O2 plan search stopped at its work budget (${budget}): ${evaluated} of ${total} candidates evaluated; ${kept}`,
    doc: `\`-O2\` predicts the time of each candidate plan with the executor and keeps the fastest
(docs/optimisations.md, "-O2: the plan"). The search has a work budget (\`--plan-budget\`, default
2,000,000 executor events and their equivalents: 1.3-3.4 s on a quiet 2-core machine). Work is counted, not
timed, so the same input and options stop at the same place on every machine and under any load.
On a large program the candidates' passes and predictions can need more than the budget. The
search then stops where the budget ran out, between passes or inside a prediction, and keeps the
best plan it has: the fastest candidate it evaluated or, when none was predicted, the first
candidate (the \`-O1\` passes, not checked against \`-O0\`). The program is correct either way;
it may be slower than the plan a full search would choose. \`--explain-plan\` lists which
candidates were skipped or stopped.

Fix: nothing is wrong with the schedule. Raise the budget (\`--plan-budget 20000000\`, or
\`unlimited\`) to search every candidate, or compile a smaller instance (\`-D\` the size parameter
down) with \`-O2 --explain-plan\` and pass the chosen options (\`--engines\`, \`--prelaunch\`) at
\`-O1\` for the large one.`,
  },
  DMAC4010: {
    severity: "error",
    phase: "backend",
    title: "too many packets",
    message: (detail: string) => detail,
    doc: `Lowering splits every copy, broadcast, swap and fill into packets of at most the target's
packet size (or \`--max-copy-bytes\`). dmac counts them before building any and stops at a limit
(default 4,000,000 data packets for \`compile\` and \`golden\`; for \`dmac sim\`, which also
runs them, 4,000,000 packets of every kind, completions and syncs included) instead of exhausting memory: a 1 GiB copy split at 3 bytes is 358 million
packets. The diagnostic points at the statement whose operation crosses the limit. Fix: a larger
packet size, fewer or larger operations, or \`--max-packets N\` if the machine has the memory.`,
  },
  DMAC4011: {
    severity: "error",
    phase: "backend",
    title: "schedule too large for the heap",
    message: (ops: number, need: string, limit: string) =>
      `this schedule instantiates ${ops} operations; compiling them needs about ${need}, more than this Node process may use (heap limit ${limit})`,
    doc: `Before dependency inference, lowering and the passes, \`dmac compile\` (and \`golden\`)
estimate the memory the rest of the compile needs from the number of operations and the
optimisation level (measured peak bytes per operation: src/util/heap-budget.ts,
docs/performance.md) and compare it with Node's heap limit. A schedule that would not fit is
this error instead of Node's "JavaScript heap out of memory" crash minutes later. Node's default
limit depends on the machine's memory (4 GiB on a 24 GiB machine; the default \`--max-ops\`,
2,000,000, fits it at every -O level). Fix: give Node a larger heap
(\`NODE_OPTIONS=--max-old-space-size=MiB\`), compile at \`-O0\` (the least memory per operation),
or fewer, larger operations.`,
  },
  DMAC4020: {
    severity: "error",
    phase: "backend",
    title: "`when` on a count flag needs a compare other than == in conservative sync",
    message: (cond: string) =>
      `\`when ${cond}\` polls a count flag with a compare other than ==, which --sync conservative does not emit; declare the signal \`thermometer\` or compile with --sync aggressive`,
    doc: `In the conservative synchronisation mode (\`--sync conservative\`, the default of
\`target mi300x\`) every POLL_REGMEM uses function 3 (==), the only compare AMD's own gfx942 code
emits (docs/runtime.md, section 6). The compiler's own words are rewritten so that == is safe
(one word per dependency, written once), but a count flag is the user's word: outside code
raises it, and may raise it past the awaited value before the queue's poll looks, so \`>= V\`
cannot become \`== V\` without a possible hang, and dmac does not change the flag's encoding
behind the user's back (docs/design-decisions.md, "Count flags under conservative sync").

Example: \`signal ready on 0\` and \`when ready@0 >= k + 1 { ... }\` compiled for \`target mi300x\`.
Fix: declare the flag \`signal ready on 0 thermometer\` (outside code then stores 2^k - 1 to raise
it to k, and the wait is a bit test, ==), or \`--sync aggressive\` (polls \`>=\` on the count:
encodable, not exercised by AMD's code), or \`when ready@0 == V\` when outside code waits until the
schedule has seen each value.`,
  },
  DMAC4101: {
    severity: "warning",
    phase: "backend",
    title: "unknown packet",
    message: (offset: string, detail: string) => `at byte ${offset}: ${detail}`,
    doc: `\`dmac disasm\` met a header it cannot decode (an unknown opcode or sub-opcode). It prints
the dword raw and resumes at the next dword.`,
  },
  DMAC4102: {
    severity: "warning",
    phase: "backend",
    title: "truncated packet",
    message: (offset: string, detail: string) => `at byte ${offset}: ${detail}`,
    doc: `The stream ends in the middle of a packet (or the file size is not a multiple of 4). The
packet's dwords are printed raw; nothing after them is lost, because nothing follows.`,
  },
  DMAC4103: {
    severity: "warning",
    phase: "backend",
    title: "reserved bits set",
    message: (offset: string, detail: string) => `at byte ${offset}: ${detail}`,
    doc: `A decoded packet has non-zero bits in fields the reference marks reserved, or an enum field
(POLL_REGMEM func, CONST_FILL fillsize, ATOMIC atomic_op) holds a value the reference does not
define. The packet is decoded anyway (reserved bits dropped); dmac never emits such bits.`,
  },
  DMAC4104: {
    severity: "warning",
    phase: "backend",
    title: "address beyond 2^53",
    message: (offset: string, detail: string) => `at byte ${offset}: ${detail}`,
    doc: `dmac represents addresses as exact integers below 2^53; a decoded packet holds a 64-bit
address above that. The listing prints the address from the raw dwords (exact); the decoded value
used by other tools is rounded.`,
  },
  DMAC4105: {
    severity: "error",
    phase: "backend",
    title: "not an SDMA packet stream",
    message: (path: string, detail: string) => `${path} is not an SDMA packet stream: ${detail}`,
    doc: `\`dmac disasm\` stops when its input is evidently not a gfx942 SDMA packet stream: the file
is text (a source file, a manifest, a trace), or decoding it met more problems (DMAC4101..4104)
than \`--max-problems\` allows (default 20). The first problems are reported, the listing stops
where the limit was reached, and the command exits 1 instead of printing a warning for every
dword of the file.

Example: \`dmac disasm out/manifest.json\`. Fix: give it one of the packet streams a compile
writes (\`out/gpu0.sdma14.bin\`); for a stream with many problems on purpose, raise the limit
(\`--max-problems 0\` means no limit).`,
  },
  DMAC4201: {
    severity: "error",
    phase: "backend",
    title: "engine map unknown for the target",
    message: (target: string, detail: string) => `target ${target}: ${detail}`,
    doc: `The schedule moves bytes between GPUs, but the target does not say which SDMA engine of a
GPU serves which peer (its \`recommendedEngine.map\` is \`"unknown"\`): no public source gives
the map of that part (MI355X), or the sources disagree (MI308X: KFD's recommended engines are
ids that are fused off). dmac does not guess, because an engine id without hardware behind it
hangs its queue.

Example: \`target mi355x\` with \`copy buf@0[...] -> buf@1[...]\`. Fix: import the node's
topology, \`dmac target import /sys/devices/virtual/kfd/kfd/topology/nodes --base mi355x -o
node.json\`, and compile with \`--target node.json\` (or \`target "node.json"\`).`,
  },
  DMAC4202: {
    severity: "error",
    phase: "backend",
    title: "engine without hardware",
    message: (target: string, queue: string, detail: string) =>
      `target ${target}: queue ${queue} ${detail}`,
    doc: `A queue would run on an engine id that the target says has no hardware behind it
(\`engines.physical\` does not list it), or whose hardware is unknown. KFD lists engine ids a
part does not have: on MI308X only the even ids of the eight are physical, and a queue on an odd
one never runs (ROCm/mori PR #693). The queue comes from an \`on sdma(E)\` in the source, an
\`--engines\` strategy, or a placement pass.

Example: \`target mi308x\` with \`copy ... on sdma(3)\`. Fix: use an engine the target lists in
\`engines.physical\`, or an \`--engines\` strategy restricted to them (\`single:2,4,6\`).`,
  },
  DMAC4203: {
    severity: "error",
    phase: "backend",
    title: "poll function not supported by the target",
    message: (target: string, func: string, supported: string) =>
      `target ${target} does not run POLL_REGMEM '${func}' (its pollFunctions: ${supported})`,
    doc: `The lowered streams wait with a POLL_REGMEM compare function that the target's
\`pollFunctions\` does not list. The diagnostic points at the statement the poll belongs to: a
\`when FLAG CMP V\` guard uses the compare as written, and dependencies between queues use
\`>=\`.

Example: a target file with \`"pollFunctions": ["eq"]\` and a schedule with \`when flag@0 >= 1\`.
Fix: a compare the target lists, or a target that lists the function (only if the part runs it:
AMD's own gfx942 code only ever emits \`eq\`).`,
  },
  DMAC4204: {
    severity: "error",
    phase: "backend",
    title: "packet larger than the part allows",
    message: (target: string, asked: number, limit: number) =>
      `target ${target}: copies split at ${asked} bytes exceed the part's descriptor limit of ${limit} bytes (limits.maxCopyBytes)`,
    doc: `\`--max-copy-bytes N\` asks for copy packets larger than the target's \`limits.maxCopyBytes\`.
The limit is a fact about the part, not a default: an MI355X SDMA engine stalls on a copy
descriptor of 256 MiB or more (ROCm/rocm-systems issue 9927), so mi355x splits at 128 MiB as RCCL
does.

Example: \`dmac compile f.dmac --target mi355x --max-copy-bytes 512MiB\`. Fix: a value up to the
limit, or leave the option out.`,
  },

  DMAC4106: {
    severity: "warning",
    phase: "backend",
    title: "listing not annotated",
    message: (path: string, detail: string) =>
      `the listing is not annotated from ${path}: ${detail}`,
    doc: `\`dmac disasm\` names the addresses of a stream, and prints its source lines, from the
manifest that lists it: the one given with \`--manifest\`, else the \`manifest.json\` beside the
stream. That manifest cannot be used: it cannot be read, it is not a valid manifest (DMAC6011
says what is wrong), it lists no queue whose stream has the file's name, or its queue has a
different length or its relocations put other addresses in the stream (the stream was written by
another compile). The plain listing is printed, as with \`--raw\`. A \`manifest.json\` found
beside the stream that is not a dmac manifest, or lists no stream of that name, is not the
stream's: the listing is plain without a warning (docs/listings.md).

Example: \`dmac disasm out/gpu0.sdma2.bin\` after \`out/gpu0.sdma2.bin\` was replaced by a stream
of another compile. Fix: compile again, or give the right manifest with \`--manifest\`.`,
  },

  // ---- 5xxx: command line and files ---------------------------------------------------------
  DMAC4030: {
    severity: "warning",
    phase: "backend",
    title: "several GPUs write one receiver at once",
    message: (now: string, rotated: string, ratio: string) =>
      `in this loop's order, several GPUs write into one receiver at once: predicted ${now}, against ${rotated} with each rank sending to r+1, r+2, ... (${ratio}x faster)`,
    doc: `When every rank walks its peers in the same order (\`for r in ranks, p in ranks where p !=
r\`), the first copy of every GPU goes to rank 0 (or 1), the second to rank 1 (or 2), and so on:
up to ranks - 1 senders share one receiver's link while the other links idle (incast). On 4
H200s through NVSwitch this halves the bandwidth of large copies (256 MiB per rank: 1036 us in
ascending order, 535 us rotated; docs/model.md). \`dmac compile\` predicts the lowered program
in its own order and with each GPU's copies rotated (rank r sends to r+1, r+2, ... mod ranks:
the order-copies pass's rotation), and warns when the rotation is predicted at least 1.2x
faster. It needs the target and the cost model, so \`dmac check\` and the editor do not run it.

Fix: write the loop in rotated order. The quick fix rewrites \`for r in ranks, p in ranks where
p != r {\` as \`for r in ranks, k in 1..ranks { let p = (r + k) % ranks\` (\`dmac fmt\` then
puts the \`let\` on a line of its own); it is offered only when no copy of the loop depends on
another (so the order cannot change the result). At -O2 the order-copies pass makes the same choice for the compiled program without
the rewrite.`,
  },
  DMAC4040: {
    severity: "error",
    phase: "backend",
    title: "not possible on this target's copy engines",
    message: (what: string, why: string) => `${what}: ${why}`,
    doc: `NVIDIA copy engines (targets \`h100\`, \`h200\`, back end \`cuda\`) move bytes between host
memory and a GPU and between GPUs; they have no broadcast, swap or fill command, and a copy
between two buffers of the same GPU runs on the GPU's SMs, not on a copy engine
(reference/h100-copy-engine.md). dmac does not silently run such an operation some other way:
it is this error, pointing at the operation.

Fix: write a broadcast as two copies, a swap through a staging buffer, a fill as a copy from a
host buffer holding the pattern; keep same-GPU copies out of the schedule (a kernel or
\`cudaMemcpyAsync\` outside dmac does them), or compile for \`mi300x\`.`,
  },
  DMAC5001: {
    severity: "error",
    phase: "cli",
    title: "cannot read file",
    message: (path: string, reason: string) => `cannot read ${path}: ${reason}`,
    doc: `An input file does not exist or cannot be read.`,
  },
  DMAC5002: {
    severity: "error",
    phase: "cli",
    title: "cannot write output",
    message: (path: string, reason: string) => `cannot write ${path}: ${reason}`,
    doc: `An output could not be written. Outputs are written to a temporary directory and renamed
into place, so the previous outputs are left intact.`,
  },
  DMAC5003: {
    severity: "error",
    phase: "cli",
    title: "unknown diagnostic code",
    message: (code: string) => `no diagnostic code '${code}'`,
    doc: `\`dmac explain CODE\` takes a code such as DMAC2004.`,
  },
  DMAC5004: {
    severity: "error",
    phase: "cli",
    title: "bad option",
    message: (option: string, detail: string) => `bad ${option}: ${detail}`,
    doc: `A command-line option has a value dmac cannot use.`,
  },
  DMAC5005: {
    severity: "error",
    phase: "cli",
    title: "golden mismatch",
    message: (path: string) => `${path} differs from its golden`,
    doc: `\`dmac golden\` produced an artefact of a schedule (its packet listing, IR, trace,
diagnostics or simulation summary) that differs from the committed golden. Review the diff; run
\`dmac golden INPUT --update\` (or \`vitest -u\` with \`dmac/testing\`) if the change is intended.`,
  },
  DMAC5006: {
    severity: "error",
    phase: "cli",
    title: "bad target description",
    message: (path: string, detail: string) => `bad target description ${path}: ${detail}`,
    doc: `A target description file (JSON) is missing a field or has a value of the wrong type.`,
  },
  DMAC5007: {
    severity: "error",
    phase: "cli",
    title: "bad measurements file",
    message: (detail: string) => detail,
    doc: `\`dmac calibrate\` cannot use a row (or the header) of its measurements file: an unknown or
repeated column, a row with the wrong number of fields, an id given twice, a schedule file that
cannot be read, a bad variant spec, a time or speedup that is not a positive number, a speedup
without a baseline, a baseline that names no row or that leads back to the row itself (a cycle),
or a row whose schedule does not compile or whose run does not verify. The diagnostic points at
the cell; \`docs/calibrate.md\` describes the format.

Example:

\`\`\`
id,file,spec,time_us,speedup,baseline
pcpy,all_gather_pcpy.dmac,chunk=128B,,,
b2b,all_gather_b2b.dmac,chunk=128B,,2.58,pcpy_1k
\`\`\`

\`pcpy_1k\` names no row. Fix: \`baseline\` must be the \`id\` of another row (here \`pcpy\`).`,
  },

  DMAC5008: {
    severity: "error",
    phase: "cli",
    title: "bad golden configuration",
    message: (detail: string) => `bad golden configuration: ${detail}`,
    doc: `A \`/// golden:\` line of a test file has an option \`dmac golden\` does not know, a value it
cannot use, or the same goldens as another line of the file. The line takes the options of the
command line (\`docs/golden.md\`); the file's other configurations still run.

Example:

\`\`\`
/// golden: -O3 --emit dump
\`\`\`

Fix: \`-O\` takes 0, 1 or 2 (\`/// golden: -O2 --emit dump\`).`,
  },

  DMAC5030: {
    severity: "error",
    phase: "cli",
    title: "golden name collision",
    message: (goldens: string, first: string, second: string) =>
      `${first} and ${second} would both own the goldens ${goldens}`,
    doc: `Two tests would write goldens of the same name, so each \`--update\` would overwrite the
other's and the run could never pass: \`a.dmac\` with \`/// golden: -O2\` and a file \`a.O2.dmac\`
both name \`a.O2.KIND.golden\` (so do \`--name x\` and \`a.x.dmac\`). The second test may also be the
one the golden index of the directory records as having blessed the golden, while its file
still exists (another run, from another directory or with other inputs). Neither test runs and
nothing is written for them (\`docs/golden.md\`, "Who owns a golden").

Fix: give one configuration a \`--name\`, or rename one file.`,
  },
  DMAC5031: {
    severity: "error",
    phase: "cli",
    title: "bad golden index",
    message: (path: string, detail: string) => `cannot use the golden index ${path}: ${detail}`,
    doc: `The index of a directory of goldens (\`.dmac-golden-index.json\`: which test blessed each
golden) is not one dmac wrote, cannot be read, or comes from a newer dmac. The tests whose
goldens live there do not run, and nothing there is written or removed.

Fix: restore the index from version control, or delete it (its goldens are then reported
unowned and never removed until an \`--update\` records them again).`,
  },
  DMAC5101: {
    severity: "error",
    phase: "cli",
    title: "bad KFD topology",
    message: (file: string, detail: string) => `${file}: ${detail}`,
    doc: `\`dmac target import DIR\` could not build a target from the KFD topology under \`DIR\` (a
copy of \`/sys/devices/virtual/kfd/kfd/topology/nodes\`). The message names the file, relative to
\`DIR\`, and what is wrong with it: a missing file or property, a line that is not \`name
value\` with a decimal value, a file above 64 KiB, a link loop, GPUs of different kinds, a pair of
GPUs without an xGMI link, an io_link without \`recommended_sdma_engine_id_mask\` (kernels
before it was added), a GPU of another ISA than the \`--base\` target, or a result the target
checks refuse (a recommended engine that the base target says has no hardware).

Example: \`dmac target import nodes/\` where \`nodes/2/properties\` says \`simd_count x\`. Fix: copy
the tree again (\`cp -r\` of the sysfs directory on the machine), or give \`--base\` the target
of the node's part.`,
  },

  DMAC5021: {
    severity: "error",
    phase: "cli",
    title: "bad snapshot",
    message: (path: string, detail: string) => `${path} is not a usable hang snapshot: ${detail}`,
    doc: `\`dmac postmortem DIR SNAPSHOT\` reads a snapshot of a hung run: JSON with, per queue, its
breadcrumb value and read pointer, and the values of the words a host read
(schemas/snapshot.schema.json; \`dmac sim --snapshot FILE\` writes one when the executor finds a
deadlock). The file is not JSON, does not match the schema, or names a queue the manifest does
not have. Fix: give the snapshot taken for this output, or write one in the schema's form.`,
  },

  DMAC5040: {
    severity: "error",
    phase: "cli",
    title: "no current directory",
    message: () =>
      "the current directory no longer exists (it was deleted after the shell entered it)",
    doc: `dmac needs its working directory to resolve a relative path and to check that an output is
not the current directory or one of its parents, and that directory was deleted (\`cd d && rmdir
../d\`). Nothing was written.

Fix: \`cd\` to a directory that exists and run the command again.`,
  },
  DMAC5050: {
    severity: "error",
    phase: "cli",
    title: "measured run of another program",
    message: (label: string, ran: string, compiled: string) =>
      `${label}: the runner ran program.txt ${ran.slice(0, 12)}..., but the example and variant compile to ${compiled.slice(0, 12)}...: its time is not this configuration's`,
    doc: `\`dmac measure\` (and \`dmac calibrate RESULTS.json\`) recompiles every run of a CUDA
results file from its example and variant and predicts it. The runner names the program.txt it
read by its SHA-256 (\`programSha256\`), which \`dmac compile\` also writes into program.json;
here the two differ: the program that ran was edited by hand, compiled from another source or
with other options, or by another version of dmac. Its time would be reported as the example's.

Fix: compile the configurations again (\`runtime/cuda/prepare.sh\`), run them, and measure the
new results; or measure with the dmac and examples the programs were compiled with.`,
  },
  DMAC5051: {
    severity: "warning",
    phase: "cli",
    title: "measured runs name no program",
    message: (count: number) =>
      `${count} runs name no program (no programSha256: a runner before it named its program): dmac cannot confirm they ran what the examples compile to`,
    doc: `A CUDA results file whose runs lack \`programSha256\` was written by a runner that did not
yet name the program it ran. \`dmac measure\` compares them with what the examples compile to
today, which may not be what ran. Fix: run the configurations again with the current runner.`,
  },
  DMAC5052: {
    severity: "warning",
    phase: "cli",
    title: "runs left out of the fit",
    message: (count: number, labels: string) =>
      `${count} runs did not verify or hung, and are left out of the fit: ${labels}`,
    doc: `\`dmac measure --fit\` (and \`dmac calibrate RESULTS.json\`) fits a target's constants only
on runs whose bytes verified and that did not hang: the time of a run that produced wrong bytes or
stopped waiting is not the time of the schedule. They are left out of the fit, its table and
its summaries (\`dmac measure\` without \`--fit\` still lists them, with a warning). Fix: find why
they failed (the runner's log), and run them again.`,
  },
  DMAC5060: {
    severity: "error",
    phase: "cli",
    title: "bad variants table",
    message: (detail: string) => `bad variants table row: ${detail}`,
    doc: `\`dmac measure\` cannot use a row of its variants table (\`runtime/cuda/variants.tsv\`, or
\`--variants FILE\`): a row is an example, a variant name and the dmac options it was compiled
with, separated by tabs, and an optional fourth column that says how a size becomes a define
(\`NAME/N\`: NAME = SIZE / N). The options are \`-D NAME=VALUE\`, \`-O0\` to \`-O2\`,
\`--prelaunch\` and \`--completion C\`. The diagnostic points at the word it cannot use: an
unknown option, an option without its value, a \`-D\` without \`=\`, a bad size define, a row
with fewer than three cells, or a variant given twice.

Example:

\`\`\`
host_upload_pieces	pcpy	-O0 -D
\`\`\`

Fix: give \`-D\` its parameter (\`-D queues=7\`), or remove it.`,
  },

  // ---- 6xxx: executor ----------------------------------------------------------------------
  DMAC6001: {
    severity: "error",
    phase: "sim",
    title: "wrong result",
    message: (detail: string) =>
      `the executed streams do not produce the expected result: ${detail}`,
    doc: `After running every queue, a destination range does not hold what the schedule's
postcondition requires.`,
  },
  DMAC6002: {
    severity: "error",
    phase: "sim",
    title: "out-of-bounds DMA",
    message: (where: string, detail: string) => `${where}: ${detail}`,
    doc: `A packet reads or writes memory outside every declared buffer, signal and sync word. The
executor reports it and does not perform the access.`,
  },
  DMAC6003: {
    severity: "error",
    phase: "sim",
    title: "data race",
    message: (detail: string) => `unordered operations overlap: ${detail}`,
    doc: `Two operations that nothing orders at run time touch overlapping bytes and at least one
writes them: the result depends on timing.`,
  },
  DMAC6004: {
    severity: "error",
    phase: "sim",
    title: "deadlock",
    message: (detail: string) => `deadlock: ${detail}`,
    doc: `Every queue that has work left is blocked on a poll that nothing will satisfy.`,
  },
  DMAC6005: {
    severity: "error",
    phase: "sim",
    title: "queue did not drain",
    message: (detail: string) => detail,
    doc: `A queue still had packets, or the host never saw a completion signal it waits for.`,
  },
  DMAC6006: {
    severity: "error",
    phase: "sim",
    title: "misaligned access",
    message: (where: string, detail: string) => `${where}: ${detail}`,
    doc: `A packet's address breaks the packet's alignment rule.`,
  },
  DMAC6007: {
    severity: "error",
    phase: "sim",
    title: "malformed packet",
    message: (where: string, detail: string) => `${where}: ${detail}`,
    doc: `A packet the executor cannot run: an unknown opcode, a truncated packet, one that is not
allowed in a user queue (a register POLL_REGMEM other than ROCr's HDP flush), or one with a
reserved or unsupported field set: reserved bits, endian-swap fields, the encrypt or TMZ bit of a
copy, fill or atomic, a FENCE to a physical address. The reference says to write these as 0 and
does not say what the engine does otherwise, so the queue stops there.`,
  },
  DMAC6008: {
    severity: "error",
    phase: "sim",
    title: "watchdog",
    message: (detail: string) => `watchdog: ${detail}`,
    doc: `The simulation exceeded its limit on events or simulated time (\`--max-events\`,
\`--max-sim-time\`). This usually means a poll spins forever.`,
  },
  DMAC6009: {
    severity: "error",
    phase: "sim",
    title: "write to a ring",
    message: (where: string, detail: string) => `${where}: ${detail}`,
    doc: `A packet writes into a queue's own ring buffer, which would rewrite commands in flight.`,
  },
  DMAC6010: {
    severity: "error",
    phase: "sim",
    title: "poll on unmapped word",
    message: (where: string, detail: string) => `${where}: ${detail}`,
    doc: `A POLL_REGMEM reads a word that is not a declared signal, sync word or buffer.`,
  },
  DMAC6011: {
    severity: "error",
    phase: "sim",
    title: "bad executor input",
    message: (file: string, path: string, detail: string) =>
      `bad executor input ${file}: ${path}: ${detail}`,
    doc: `A manifest.json or trace.json given to \`dmac sim\` is not a well-formed schema-1 document:
a field is missing or has the wrong type, a number is out of range (addresses must be below 2^53,
GPUs below \`ranks\`), a count is larger than the input could possibly use, two memory areas
overlap, or a queue's packet file is missing. The JSON path names the bad field
(\`$.memory.completionSignals.count\`). Nothing is run. Fix: recompile the schedule with
\`dmac compile\` instead of editing its outputs by hand.

The document must also agree with itself and with its packet streams: each \`.bin\` is exactly
\`dwords\` long; the memory regions are \`gpu0\` .. \`gpuN-1\` then \`host\`, disjoint, each holding
every buffer, signal, sync word and slot of its memory; a relocation names a queue of the manifest,
a region, and the low dword of a packet's address field holding that region's base plus the
addend; each queue's \`completionSlots\` are the slots its stream signals, in order, each slot
listed once, written as \`completion.protocol\` says; and, with the source recompiled, the buffers
and user signals are the schedule's (a sync word listed as a signal is refused).

A manifest's \`manifest.sidecar\` (docs/manifest.md, "The sidecar") that matches manifest.json's
hash but is malformed (its table or a payload outside the file, a span that is not an array of
manifest.json, a number that is not an integer below 2^53, an array where the JSON has none) is
reported the same way, naming the sidecar and its entry or the JSON path. Fix: compile again, or
delete the sidecar (manifest.json alone is read then).`,
  },
  DMAC6012: {
    severity: "error",
    phase: "sim",
    title: "overlapping packet ranges",
    message: (where: string, detail: string) => `${where}: ${detail}`,
    doc: `A COPY_LINEAR whose source and destination overlap, a broadcast whose destinations overlap
(or overlap its source), or a COPY_SWAP whose halves overlap. The engine's result is undefined
then (it copies in bursts, in an order the reference does not give), so the executor does not
run the packet instead of giving it a meaning. dmac never emits one: the checker rejects the
source forms (DMAC3008, DMAC3009, DMAC3014).`,
  },
  DMAC6013: {
    severity: "error",
    phase: "sim",
    title: "schedule meaning broken",
    message: (where: string, detail: string) => `${where}: ${detail}`,
    doc: `The run moved the right bytes, or might have, but not the way the schedule says. With the
schedule's IR and the source map the executor checks, by happens-before (never by timing):
every data packet does what the operations it maps to say, and every byte of every operation is
moved exactly once; a user signal is raised only by ATOMIC add 1, only if the schedule notifies
it (an external signal is raised by its producer alone), exactly as many times as it has
\`notify\`s, and when it reaches k, after every earlier write to its rank that the k-th
\`notify\` announces; every command inside \`when\` runs after a poll saw the flag meet the
condition; every completion slot is written exactly once, by its own queue, after all the work
it announces, and every data operation is announced by some slot. Streams \`dmac compile\` writes meet all of this; a hand-edited one that breaks
it is reported even if the final buffers happen to be right. Fix: recompile instead of editing
the streams.`,
  },
  DMAC6014: {
    severity: "error",
    phase: "sim",
    title: "poll timed out",
    message: (where: string, detail: string) => `${where}: ${detail}`,
    doc: `A POLL_REGMEM with a retry count other than 0xFFF (retry forever) checked its word that
many times after the first check without the condition holding: the engine gives up, and the
queue stops there. dmac's polls always retry forever.`,
  },
  DMAC6020: {
    severity: "error",
    phase: "sim",
    title: "postcondition not checked",
    message: (input: string, reason: string) =>
      `${input}: the postcondition was not checked: ${reason}`,
    doc: `\`dmac sim\` on a manifest or trace recompiles the schedule's source (named by the output,
relative to it, with the recorded parameters, schedule and \`--target\` file) to check that the
streams compute what the schedule means. When the source cannot be found, read or compiled that
way, only the functional checks (bounds, races, deadlock, completion) can run, and that is not a
verification: the run fails. Fix: keep the source where it was compiled from (or recompile), or
pass \`--no-verify\` to run the streams without the postcondition (exit 0 if the functional
checks pass).`,
  },
  DMAC6030: {
    severity: "error",
    phase: "sim",
    title: "packet the part cannot run",
    message: (where: string, detail: string) => `${where}: ${detail}`,
    doc: `A packet that breaks a limit of the target's part which compile obeys, so compile never
emits it but a runtime would hand it to the hardware: a copy, broadcast or swap larger than
\`limits.maxCopyBytes\` (an MI355X engine stalls on a COPY_LINEAR of 256 MiB or more) or a fill
larger than \`limits.maxFillBytes\`; a transfer touching another GPU's memory on an engine that is
not an xGMI engine, or host memory on one that is not a PCIe engine (the rule of DMAC3005); a poll
with a compare function the part does not run (the rule of DMAC4203). The packet is not executed.
Fix: compile the schedule again for this target instead of editing its streams.`,
  },
} as const satisfies Record<`DMAC${number}`, DiagnosticSpec>;

export type DiagnosticCode = keyof typeof DIAGNOSTICS;
export type MessageArgs<C extends DiagnosticCode> = Parameters<(typeof DIAGNOSTICS)[C]["message"]>;

export function isDiagnosticCode(code: string): code is DiagnosticCode {
  return Object.hasOwn(DIAGNOSTICS, code);
}
