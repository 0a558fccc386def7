// Deterministic boundary values of an integer type.
import type { IntType } from '../../../src/c/types.js';

export function minOf(t: IntType): bigint {
  return t.signed ? -(1n << BigInt(t.bits - 1)) : 0n;
}

export function maxOf(t: IntType): bigint {
  return t.signed ? (1n << BigInt(t.bits - 1)) - 1n : (1n << BigInt(t.bits)) - 1n;
}

/**
 * 0, ±1, every power of two ±2^k with its neighbours ±2^k±1, MIN, MIN+1, MAX-1, MAX —
 * whichever are in range — sorted ascending without duplicates.
 */
export function boundaryValues(t: IntType): bigint[] {
  const lo = minOf(t);
  const hi = maxOf(t);
  const s = new Set<bigint>([0n, 1n, -1n, lo, lo + 1n, hi - 1n, hi]);
  for (let k = 1; k <= t.bits; k++) {
    const p = 1n << BigInt(k);
    for (const v of [p, p - 1n, p + 1n]) {
      s.add(v);
      s.add(-v);
    }
  }
  return [...s].filter((v) => v >= lo && v <= hi).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Boundary values plus every shift count 0..65 that is in range (right operands of shifts). */
export function shiftCountValues(t: IntType): bigint[] {
  const s = new Set(boundaryValues(t));
  for (let c = 0n; c <= 65n && c <= maxOf(t); c++) s.add(c);
  return [...s].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Values whose pairs are never thinned away: the extremes and the small values around 0. */
export function isCoreValue(t: IntType, v: bigint): boolean {
  const lo = minOf(t);
  const hi = maxOf(t);
  return v === lo || v === lo + 1n || v === hi || v === hi - 1n || (v >= -2n && v <= 2n);
}

/** Deterministic pseudo-random generator (mulberry32) for reproducible samples. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
