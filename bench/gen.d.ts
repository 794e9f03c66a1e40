// Types of bench/gen.js (plain JS so that `node bench/run.js` needs no build), for the tests.
export function allToAll(chunks: number): string;
export function forwardProgram(ops: number): string;
export function sameSourceChain(ops: number): string;
export function checkHeavySource(lines: number): string;
