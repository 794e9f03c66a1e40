// Generators for the benchmark programs (plain .dmac source text).
// - allToAll(chunks): the 8-GPU all-to-all of DMA-Latte `pcpy`, each (r, p) block cut into
//   `chunks` copies: 64 * chunks operations, verified against `implements all_to_all`.
// - forwardProgram(ops): a fine-grained pipelined program of `ops` operations written with loops:
//   every rank pushes small blocks to a rotating peer, and the peer then moves each block on
//   locally, so half of the operations depend on an operation of another GPU (cross-queue
//   signal + poll in the lowering). ops must be a multiple of 16.
// - sameSourceChain(ops): one GPU copies the same source bytes to the same destination `ops`
//   times, each copy ordered after the previous one (write after write): every copy is a
//   broadcast candidate of every other and none may move up, the worst case of bcast-fusion's
//   partner search (quadratic before it skipped the copies that may not move up).
// - checkHeavySource(lines): a ~`lines`-line file of many small schedules using every statement
//   kind, for parse + check throughput (every schedule is checked, none is instantiated).

export function allToAll(chunks) {
  return `target mi300x

schedule all_to_all_chunked(piece: bytes = 4KiB, chunks: int = ${chunks}) implements all_to_all(src, dst) {
  buffer src: piece * chunks * ranks
  buffer dst: piece * chunks * ranks
  for r in ranks, p in ranks, k in 0..chunks {
    copy src@r[(p * chunks + k) * piece +: piece] -> dst@p[(r * chunks + k) * piece +: piece]
  }
}
`;
}

export function forwardProgram(ops) {
  if (ops % 16 !== 0) throw new Error(`forwardProgram: ${ops} is not a multiple of 16`);
  const k = ops / 16;
  return `target mi300x

schedule forward(blk: bytes = 64B, k: int = ${k}) {
  buffer src: blk * k
  buffer mid: blk * k
  buffer dst: blk * k
  for r in ranks, i in 0..k {
    copy src@r[i * blk +: blk] -> mid@((r + 1 + i % 7) % ranks)[i * blk +: blk]
    copy mid@((r + 1 + i % 7) % ranks)[i * blk +: blk] -> dst@((r + 1 + i % 7) % ranks)[i * blk +: blk]
  }
}
`;
}

export function sameSourceChain(ops) {
  return `target mi300x

schedule same_source_chain(blk: bytes = 64B, k: int = ${ops}) {
  buffer src: blk
  buffer dst: blk
  for _i in 0..k {
    copy src@0[0 +: blk] -> dst@1[0 +: blk]
  }
}
`;
}

/** One schedule of ~25 lines; `i` makes the names unique. */
function checkUnit(i) {
  return `/// Generated schedule ${i}: an all-gather with a pipelined tail.
schedule unit${i}(chunk: bytes = 4KiB, parts: int = 4) implements all_gather_inplace(buf) {
  buffer buf: chunk * ranks
  buffer tmp: chunk
  signal ready
  const half = 2
  let piece = chunk / parts
  for r in ranks, p in ranks where p != r {
    copy buf@r[r * chunk +: chunk] -> buf@p[r * chunk +: chunk]
  }
  for k in 0..parts {
    if k % half == 0 {
      fill tmp@0[k * piece +: piece] with 0
    } else {
      when ready@0 >= k {
        copy tmp@0[k * piece +: piece] -> tmp@1[k * piece +: piece]
      }
    }
  }
  notify ready@1
  // a comment line
  /* and a block comment */
}

`;
}

export function checkHeavySource(lines) {
  const parts = ["target mi300x\n\n"];
  let n = 2;
  for (let i = 0; n < lines; i++) {
    const u = checkUnit(i);
    parts.push(u);
    n += u.split("\n").length - 1;
  }
  return parts.join("");
}
