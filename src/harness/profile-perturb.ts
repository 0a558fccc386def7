// Seeded perturbations of a true profile: counts scaled, swapped between two counters of one
// function, zeroed. Two formats: gcc's .gcda files, rewritten here byte by byte from gcov-io.h's
// description, and llvm-profdata's text form, rewritten line by line. Both keep every record and
// every function's checksums or hash, so the compiler still accepts the profile as the program's;
// only the counts lie. A perturbation is a function of the seed and the input bytes alone.
import { createHash } from 'node:crypto';

/** Counts never exceed this after a perturbation (a scaled count must not wrap around 64 bits). */
const MAX_COUNT = 1n << 62n;

/** A deterministic stream of 32-bit numbers: SHA-256 of the seed and a block number. */
class SeededStream {
  private block = 0;
  private words: number[] = [];

  constructor(private readonly seed: string) {}

  next(): number {
    if (this.words.length === 0) {
      const d = createHash('sha256')
        .update(`${this.seed}\0${this.block++}`)
        .digest();
      for (let i = 0; i < d.length; i += 4) this.words.push(d.readUInt32LE(i));
    }
    return this.words.shift()!;
  }

  /** A number in [0, n). */
  below(n: number): number {
    return this.next() % n;
  }
}

const SCALES: readonly { mul: bigint; div: bigint }[] = [
  { mul: 2n, div: 1n },
  { mul: 3n, div: 1n },
  { mul: 10n, div: 1n },
  { mul: 1000n, div: 1n },
  { mul: 1n, div: 2n },
  { mul: 1n, div: 16n },
];

/**
 * Perturbs the counters of each function in place: per function one of scale (all its counters
 * by ×2, ×3, ×10, ×1000, ÷2 or ÷16), swap (two of its counters), zero (all of them, or one), or
 * keep. When that changed nothing (all kept, or every count zero), the first function gets its
 * counts scaled by 1000, or its first counter set to 1000, so a perturbed profile always differs
 * from the true one. Returns whether anything changed (always true for a non-empty input).
 */
function perturbCounts(functions: bigint[][], seed: string): boolean {
  const rng = new SeededStream(seed);
  const before = functions.map((f) => f.join(','));
  for (const f of functions) {
    if (f.length === 0) continue;
    switch (rng.below(4)) {
      case 0: {
        const s = SCALES[rng.below(SCALES.length)]!;
        for (let i = 0; i < f.length; i++) f[i] = clamp((f[i]! * s.mul) / s.div);
        break;
      }
      case 1: {
        if (f.length < 2) break;
        const i = rng.below(f.length);
        const j = (i + 1 + rng.below(f.length - 1)) % f.length;
        [f[i], f[j]] = [f[j]!, f[i]!];
        break;
      }
      case 2:
        if (rng.below(2) === 0) f.fill(0n);
        else f[rng.below(f.length)] = 0n;
        break;
      default:
        break;
    }
  }
  if (functions.some((f, i) => f.join(',') !== before[i])) return true;
  const first = functions.find((f) => f.length > 0);
  if (!first) return false;
  if (first.some((v) => v !== 0n)) for (let i = 0; i < first.length; i++) first[i] = clamp(first[i]! * 1000n);
  else first[0] = 1000n;
  return true;
}

function clamp(v: bigint): bigint {
  return v > MAX_COUNT ? MAX_COUNT : v;
}

// --- gcc: .gcda files (gcov-io.h) -------------------------------------------------------------
//
// A .gcda file is a sequence of 32-bit words in the target's byte order: the magic `gcda`, the
// version (`B22*` for GCC 12.2: (major / 10) + 'A', major % 10, minor, '*'), a stamp, from GCC 12
// on a checksum, then records: tag, length, data. GCC 12 changed lengths from words to bytes. A
// FUNCTION record (tag 0x01000000: ident, line-number and CFG checksums) is followed by its
// counter records (tag 0x01a10000 + (kind << 17)), each counter 64 bits as low then high word; a
// counter record of negative length (GCC 12 and later) stands for that many zero counters and
// has no data. Tag 0 ends the file. Only the arc counters (kind 0, the edge counts the others
// are derived from) are perturbed: value profiles (top-N, indirect calls) have an inner structure.

const GCDA_MAGIC = 0x67636461;
const TAG_FUNCTION = 0x01000000;
const TAG_ARCS = 0x01a10000;

/** Where a gcda file's arc counters are: per function, the byte offset and number of each block. */
interface GcdaLayout {
  readonly littleEndian: boolean;
  readonly major: number;
  readonly functions: { offset: number; count: number }[][];
}

/** The GCC major version a .gcda version word stands for (`B22*` → 12). */
export function gcdaMajor(version: number): number {
  return ((version >>> 24) - 0x41) * 10 + (((version >>> 16) & 0xff) - 0x30);
}

function readLayout(b: Buffer): GcdaLayout {
  if (b.length < 12) throw new Error('gcda: file too short');
  const littleEndian = b.readUInt32LE(0) === GCDA_MAGIC;
  if (!littleEndian && b.readUInt32BE(0) !== GCDA_MAGIC) throw new Error('gcda: bad magic');
  const u32 = (at: number): number => (littleEndian ? b.readUInt32LE(at) : b.readUInt32BE(at));
  const major = gcdaMajor(u32(4));
  const bytes = major >= 12;
  let pos = bytes ? 16 : 12;
  const functions: { offset: number; count: number }[][] = [];
  while (pos + 8 <= b.length) {
    const tag = u32(pos);
    if (tag === 0) break;
    const raw = u32(pos + 4);
    pos += 8;
    const isCounter = (tag & 0xff000000) === 0x01000000 && tag !== TAG_FUNCTION;
    if (isCounter && (raw | 0) < 0) continue;
    const length = bytes ? raw : raw * 4;
    if (pos + length > b.length) throw new Error('gcda: record past the end of the file');
    if (tag === TAG_FUNCTION) functions.push([]);
    else if (tag === TAG_ARCS && functions.length > 0) functions.at(-1)!.push({ offset: pos, count: length / 8 });
    pos += length;
  }
  return { littleEndian, major, functions };
}

/**
 * A perturbed copy of a .gcda file: its arc counters perturbed per function ({@link perturbCounts}),
 * its stamp (and GCC 12's checksum), which vary from compile to compile and which -fprofile-use
 * does not check, set to 0 so the result depends on the counts alone. Throws on a file it cannot read.
 */
export function perturbGcda(data: Uint8Array, seed: string): Buffer {
  const b = Buffer.from(data);
  const l = readLayout(b);
  const read = (at: number): bigint => {
    const lo = l.littleEndian ? b.readUInt32LE(at) : b.readUInt32BE(at);
    const hi = l.littleEndian ? b.readUInt32LE(at + 4) : b.readUInt32BE(at + 4);
    return (BigInt(hi) << 32n) | BigInt(lo);
  };
  const write = (at: number, v: bigint): void => {
    const lo = Number(v & 0xffffffffn);
    const hi = Number(v >> 32n);
    if (l.littleEndian) {
      b.writeUInt32LE(lo, at);
      b.writeUInt32LE(hi, at + 4);
    } else {
      b.writeUInt32BE(lo, at);
      b.writeUInt32BE(hi, at + 4);
    }
  };
  const counts = l.functions.map((blocks) =>
    blocks.flatMap((blk) => Array.from({ length: blk.count }, (_, i) => read(blk.offset + 8 * i))),
  );
  perturbCounts(counts, seed);
  l.functions.forEach((blocks, f) => {
    let k = 0;
    for (const blk of blocks) for (let i = 0; i < blk.count; i++) write(blk.offset + 8 * i, counts[f]![k++]!);
  });
  b.fill(0, 8, l.major >= 12 ? 16 : 12);
  return b;
}

/** The arc counters of a .gcda file, per function (for tests and reports). */
export function gcdaArcCounts(data: Uint8Array): bigint[][] {
  const b = Buffer.from(data);
  const l = readLayout(b);
  const u32 = (at: number): number => (l.littleEndian ? b.readUInt32LE(at) : b.readUInt32BE(at));
  return l.functions.map((blocks) =>
    blocks.flatMap((blk) =>
      Array.from(
        { length: blk.count },
        (_, i) => (BigInt(u32(blk.offset + 8 * i + 4)) << 32n) | BigInt(u32(blk.offset + 8 * i)),
      ),
    ),
  );
}

// --- clang: llvm-profdata's text form ----------------------------------------------------------
//
// `llvm-profdata merge --text` writes one block per function: its name, `# Func Hash:` and the
// hash, `# Num Counters:` and N, `# Counter Values:` and N lines of counts, then optional value
// profile data, blocks separated by a blank line; a header line such as `:ir` may come first.
// Only the N counts after `# Counter Values:` change.

/** The counts of each function of a text profile, with the line each sits on. */
function textCounters(lines: readonly string[]): { line: number; value: bigint }[][] {
  const out: { line: number; value: bigint }[][] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '# Counter Values:') continue;
    const declared = i >= 2 && lines[i - 2]!.trim() === '# Num Counters:' ? Number(lines[i - 1]!.trim()) : Number.NaN;
    const fn: { line: number; value: bigint }[] = [];
    for (let k = i + 1; k < lines.length && /^\d+$/.test(lines[k]!.trim()); k++) {
      if (!Number.isNaN(declared) && fn.length >= declared) break;
      fn.push({ line: k, value: BigInt(lines[k]!.trim()) });
    }
    out.push(fn);
  }
  return out;
}

/** A perturbed copy of a text profile (see above); everything but the counts is kept byte for byte. */
export function perturbProfText(text: string, seed: string): string {
  const lines = text.split('\n');
  const fns = textCounters(lines);
  const counts = fns.map((f) => f.map((c) => c.value));
  perturbCounts(counts, seed);
  fns.forEach((f, i) => {
    f.forEach((c, k) => {
      lines[c.line] = String(counts[i]![k]);
    });
  });
  return lines.join('\n');
}

/** The counts of a text profile, per function (for tests and reports). */
export function profTextCounts(text: string): bigint[][] {
  return textCounters(text.split('\n')).map((f) => f.map((c) => c.value));
}
