// "Did you mean" suggestions: the closest candidate by edit distance, if it is close enough to be
// a plausible typo (at most a third of the name's length, and at least one edit allowed).

export function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + cost);
      diag = up;
    }
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

/** `did you mean 'x'?` or undefined. */
export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  const best = closestName(name, candidates);
  return best === undefined ? undefined : `did you mean '${best}'?`;
}
