// "Did you mean" suggestions: the closest candidate by edit distance, if it is close enough to be
// a plausible typo (at most a third of the name's length, and at least one edit allowed).

import type { Fix } from "./diagnostic.js";
import type { Span } from "../source/source-file.js";

/**
 * Edit distance with adjacent transpositions (optimal string alignment): `bfu` -> `buf` is one
 * edit, as a typist would count it, not two.
 */
export function editDistance(a: string, b: string): number {
  let prev2 = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1);
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, prev2[j - 2]! + 1);
      }
      row[j] = d;
    }
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/** The best candidate for `name`, or undefined. Ties go to the candidate listed first. */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    if (c === name) continue;
    const d = c.toLowerCase() === name.toLowerCase() ? 0.5 : editDistance(name, c);
    if (d <= limit && d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * The did-you-mean hint for a misspelt name, with the fix that replaces it (the name at `span`
 * with the suggestion: `dmac check` prints it, an editor offers it as a quick fix); `{}` when no
 * candidate is close.
 */
export function nameSuggestion(
  name: string,
  candidates: Iterable<string>,
  span: Span,
): { hint?: string; fix?: Fix } {
  const best = closestName(name, candidates);
  return best === undefined
    ? {}
    : { hint: `did you mean '${best}'?`, fix: { span, replacement: best } };
}

/** `did you mean 'x'?` or undefined. */
export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  const best = closestName(name, candidates);
  return best === undefined ? undefined : `did you mean '${best}'?`;
}
