// Array helpers that never spread a list into call arguments. `a.push(...b)`, `Math.max(...b)`
// and `f(...b)` put every element on the stack: past ~100k elements (a source with that many
// errors, a sweep with that many points) they throw RangeError, "Maximum call stack size
// exceeded". These loop instead. (test/adversarial/limits.test.ts checks 200k diagnostics.)

/** Appends every element of `items` to `target` (in order) and returns `target`. */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const x of items) target.push(x);
  return target;
}

/** The largest element (-Infinity for an empty list), as Math.max would give. */
export function maxOf(items: Iterable<number>): number {
  let m = -Infinity;
  for (const x of items) {
    if (Number.isNaN(x)) return NaN;
    if (x > m || (x === 0 && Object.is(m, -0))) m = x;
  }
  return m;
}

/** The smallest element (Infinity for an empty list), as Math.min would give. */
export function minOf(items: Iterable<number>): number {
  let m = Infinity;
  for (const x of items) {
    if (Number.isNaN(x)) return NaN;
    if (x < m || (Object.is(x, -0) && m === 0)) m = x;
  }
  return m;
}

type TypedArray = Int32Array | Uint32Array | Uint8Array | Float64Array;

/** A typed array of the same kind with room for `length` elements, `a`'s copied to its start. */
export function grown<A extends TypedArray>(a: A, length: number): A {
  const b = new (a.constructor as new (n: number) => A)(length);
  b.set(a);
  return b;
}
