// THE compare functions of a memory poll (SDMA POLL_REGMEM), in the packet's func-code order
// (sdma-gfx942.md 2.10: 0 always, 1 <, 2 <=, 3 ==, 4 !=, 5 >=, 6 >). Past the front end there is
// one vocabulary, `PollFunc`: the operator, as the source, the IR, the queue programs,
// trace.json, the executor and its messages write it. `name` is how the formats that name them
// in words write them: a target file's `pollFunctions`, the packet decoder and dump.txt. (A CUDA
// program's `wait` spells the two that cuStreamWaitValue32 runs as its flags, geq and eq:
// docs/cuda.md.)

/** A comparison of the language: `when FLAG@r OP V`, `wait ... OP V`. */
export type CompareOp = "==" | "!=" | "<" | "<=" | ">" | ">=";

/** A poll's compare function: a comparison, or `always` (the packet's code 0). */
export type PollFunc = CompareOp | "always";

export const POLL_FUNCS = [
  { func: "always", name: "always" },
  { func: "<", name: "lt" },
  { func: "<=", name: "le" },
  { func: "==", name: "eq" },
  { func: "!=", name: "ne" },
  { func: ">=", name: "ge" },
  { func: ">", name: "gt" },
] as const satisfies readonly { readonly func: PollFunc; readonly name: string }[];

/** A compare function by name (target files, packets, dump.txt). */
export type PollFuncName = (typeof POLL_FUNCS)[number]["name"];

/** The compare functions by their func code. */
export const POLL_FUNC_CODES: readonly PollFunc[] = POLL_FUNCS.map((f) => f.func);

/** The names by func code. */
export const POLL_FUNC_NAMES: readonly PollFuncName[] = POLL_FUNCS.map((f) => f.name);

const CODE_OF_FUNC = new Map<PollFunc, number>(POLL_FUNC_CODES.map((f, i) => [f, i]));

/** The func code of a compare function. */
export const pollFuncCode = (f: PollFunc): number => CODE_OF_FUNC.get(f)!;

/** A compare function's name. */
export const pollFuncName = (f: PollFunc): PollFuncName => POLL_FUNC_NAMES[pollFuncCode(f)]!;

/** The compare function of a name. */
export const pollFuncOfName = (name: PollFuncName): PollFunc =>
  POLL_FUNC_CODES[POLL_FUNC_NAMES.indexOf(name)]!;
