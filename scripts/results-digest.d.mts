// Types of scripts/results-digest.mjs (plain JS so that it runs without a build), for the tests.

export interface DigestCase {
  readonly id: string;
  readonly source: string;
  readonly level: string;
  readonly gen?: { readonly fn: string; readonly arg: number };
}
/** Per case id: its command lines, the compile's exit and streams, file digests, sim summaries. */
export type Digests = Record<string, Record<string, unknown>>;

export const DIGESTS: string;
export const DIGESTS_LARGE: string;
export const EMIT: string;
export function ciCases(): DigestCase[];
export function largeCases(): DigestCase[];
export function caseCommands(c: DigestCase): [Record<string, string>, string[]][];
export function normalizeSummary(value: unknown): unknown;
export function canon(value: unknown): string;
export function runCase(c: DigestCase, work: string): Promise<Record<string, unknown>>;
export function computeDigests(
  cases: readonly DigestCase[],
  options?: { concurrency?: number; log?: (line: string) => void },
): Promise<Digests>;
export function compareDigests(expected: Digests, actual: Digests): string[];
export function abridge(diffs: readonly string[], perCase?: number): string[];
export function formatDigests(digests: Digests): string;
