/**
 * Lines added plus lines removed between two texts (a longest-common-subsequence line diff):
 * how far a variant is from its base. Quadratic in lines, which is fine for generated programs
 * (a few thousand lines: a few million cells of one typed row pair).
 */
export function diffLines(a: string, b: string): number {
  const x = a.split('\n');
  const y = b.split('\n');
  // Common prefix and suffix cost nothing.
  let lo = 0;
  while (lo < x.length && lo < y.length && x[lo] === y[lo]) lo++;
  let hx = x.length;
  let hy = y.length;
  while (hx > lo && hy > lo && x[hx - 1] === y[hy - 1]) {
    hx--;
    hy--;
  }
  const xs = x.slice(lo, hx);
  const ys = y.slice(lo, hy);
  let prev = new Int32Array(ys.length + 1);
  let cur = new Int32Array(ys.length + 1);
  for (let i = 1; i <= xs.length; i++) {
    for (let j = 1; j <= ys.length; j++)
      cur[j] = xs[i - 1] === ys[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    [prev, cur] = [cur, prev];
  }
  const common = prev[ys.length]!;
  return xs.length - common + (ys.length - common);
}
