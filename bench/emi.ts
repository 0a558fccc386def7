// EMI variants: N programs × K variants (default 200 × 10, csmith mode, medium size).
//   - variants/s: `kiln emi --seed S --variants K --json` timed from outside as whole processes
//     (generation of the base included, as a user runs it);
//   - share of variants proven by the interpreter (the rest are internal: a Kiln bug, never written);
//   - mutation-kind shares: the share of proven variants carrying each kind at least once;
//   - `pure`/`const` attributes: how many proven variants carry, how many drawn ones the final
//     program no longer granted (removed, or const made pure), and the variants with an attribute
//     its final program does not grant (`contracts.broken` of `kiln emi --json`: must be 0);
//   - diffLines share: lines added plus removed against the base, over the variant's lines (median);
//   - every proven variant compiled by each compiler found of gcc and clang at -O0 -O1 -O2 -Os -O3
//     and run: variants not printing their base's expected line are listed (compiler disagreements);
//   - the first 50 proven variants under clang ASan+UBSan, clang MSan and gcc UBSan (must be silent).
// Campaign throughput with and without `kiln fuzz --emi`: bench/emi-campaign.ts.
//
//   npm run bench:emi [-- --count 200 --variants 10 --first 1 --size medium --jobs 2] [-- --smoke]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess } from '../src/harness/process.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const smoke = process.argv.includes('--smoke');
const count = smoke ? 1 : Number(arg('count', '200'));
const variants = smoke ? 2 : Number(arg('variants', '10'));
const first = Number(arg('first', '1'));
const size = smoke ? 'small' : arg('size', 'medium');
const jobs = Math.max(1, Number(arg('jobs', '2')));
const levels = smoke ? ['-O0'] : ['-O0', '-O1', '-O2', '-Os', '-O3'];
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'kiln-bench-emi-'));

interface Line {
  seed: string;
  variant: number;
  file?: string;
  expected?: string;
  strategies?: Record<string, number>;
  diffLines?: number;
  lines?: number;
  internal?: string;
  contracts?: { pure: number; const: number; removed: number; weakened: number; broken: number };
}

async function which(cc: string): Promise<boolean> {
  return (await runProcess('sh', ['-c', `command -v ${cc}`], { timeoutMs: 5000 })).status === 0;
}

async function pool<T>(items: readonly T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await f(items[next++]!);
    }),
  );
}

async function main(): Promise<void> {
  const compilers: string[] = [];
  for (const cc of ['gcc', 'clang']) if (await which(cc)) compilers.push(cc);
  if (!compilers.length) throw new Error('bench:emi needs gcc or clang on PATH');
  const seeds = Array.from({ length: count }, (_, i) => first + i);
  const lines: Line[] = [];
  const failed: string[] = [];
  const t0 = performance.now();
  await pool(seeds, jobs, async (s) => {
    const r = await runProcess(
      process.execPath,
      [
        '--import',
        'tsx',
        join(root, 'src/cli/main.ts'),
        'emi',
        '--seed',
        String(s),
        '--size',
        size,
        '--variants',
        String(variants),
        '-o',
        join(work, `s${s}`),
        '--json',
      ],
      { cwd: root, timeoutMs: 600_000, maxOutputBytes: 1 << 24 },
    );
    // A seed whose `kiln emi` failed is reported, never silently left out of the figures.
    if (r.status !== 0)
      failed.push(
        `seed ${s}: kiln ` +
          `emi ${r.timedOut ? 'timed out' : `exited with ${r.status ?? r.signal}`}: ` +
          `${r.stderr.trim().split('\n').slice(-1)[0] ?? ''}`,
      );
    for (const l of r.stdout.split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Line);
  });
  const wall = (performance.now() - t0) / 1000;
  const proven = lines.filter((l) => l.variant > 0 && !l.internal);
  const internal = lines.filter((l) => l.internal);
  const kinds = new Map<string, number>();
  for (const l of proven)
    for (const [k, n] of Object.entries(l.strategies ?? {})) if (n > 0) kinds.set(k, (kinds.get(k) ?? 0) + 1);
  const contracts = { pure: 0, const: 0, removed: 0, weakened: 0, broken: 0, unchecked: 0 };
  for (const l of proven) {
    const c = l.contracts;
    if (!c) {
      contracts.unchecked++;
      continue;
    }
    contracts.pure += c.pure;
    contracts.const += c.const;
    contracts.removed += c.removed;
    contracts.weakened += c.weakened;
    if (c.broken > 0) contracts.broken++;
  }
  const shares = proven.map((l) => (l.diffLines ?? 0) / Math.max(1, l.lines ?? 1)).sort((a, b) => a - b);
  const median = shares.length ? shares[Math.floor(shares.length / 2)]! : 0;
  const disagreements: string[] = [];
  const flaky: string[] = [];
  let runs = 0;
  const tests = lines
    .filter((l) => !l.internal)
    .flatMap((l) => compilers.flatMap((cc) => levels.map((o) => ({ l, cc, o }))));
  await pool(tests, jobs, async ({ l, cc, o }) => {
    const exe = `${l.file}.${cc}${o}`;
    const c = await runProcess(cc, [o, '-w', l.file!, '-o', exe], { timeoutMs: 300_000 });
    runs++;
    if (c.status !== 0) {
      disagreements.push(`${l.file} ${cc} ${o}: does not compile: ${c.stderr.split('\n')[0]}`);
      return;
    }
    let r = await runProcess(exe, [], { timeoutMs: 20_000 });
    // A failure is run again, as campaigns do: on a loaded machine a run can miss its limit.
    if (r.stdout.trimEnd() !== l.expected) {
      const again = await runProcess(exe, [], { timeoutMs: 60_000 });
      if (again.stdout.trimEnd() === l.expected)
        flaky.push(
          `${l.file} ${cc} ${o}: first run ${r.timedOut ? 'timed out' : `status ${r.status}`}, ` +
            `printed ${JSON.stringify(r.stdout.trim())}`,
        );
      r = again;
    }
    if (r.stdout.trimEnd() !== l.expected)
      disagreements.push(
        `${l.file} ${cc} ${o}: printed ${JSON.stringify(r.stdout.trim())} ` +
          `(status ${r.status}${r.timedOut ? ', timed out' : ''}), expected ${l.expected}`,
      );
    rmSync(exe, { force: true });
  });
  // Sanitizers on the first variants: clang ASan+UBSan, clang MSan, gcc UBSan, recovery off.
  const sanitizers: Array<[string, string[]]> = [
    ['clang', ['-O1', '-g', '-fsanitize=address,undefined', '-fno-sanitize-recover=all']],
    ['clang', ['-O1', '-g', '-fsanitize=memory', '-fno-sanitize-recover=all']],
    ['gcc', ['-O1', '-g', '-fsanitize=undefined', '-fno-sanitize-recover=all']],
  ];
  const sanitized = proven.slice(0, smoke ? 1 : 50);
  const reports: string[] = [];
  await pool(
    sanitized.flatMap((l) => sanitizers.map((s) => ({ l, s }))),
    jobs,
    async ({ l, s: [cc, flags] }) => {
      if (!compilers.includes(cc)) return;
      const exe = `${l.file}.san${flags[2]!.replace(/\W/g, '')}${cc}`;
      const c = await runProcess(cc, [...flags, '-w', l.file!, '-o', exe], { timeoutMs: 300_000 });
      if (c.status !== 0) {
        reports.push(`${l.file} ${cc} ${flags[2]}: does not compile: ${c.stderr.split('\n')[0]}`);
        return;
      }
      let r = await runProcess(exe, [], { timeoutMs: 120_000 });
      const bad = (x: typeof r): boolean =>
        x.status !== 0 || x.stdout.trimEnd() !== l.expected || /runtime error|Sanitizer/.test(x.stderr);
      if (bad(r) && !/runtime error|Sanitizer/.test(r.stderr)) {
        const again = await runProcess(exe, [], { timeoutMs: 300_000 });
        if (!bad(again))
          flaky.push(
            `${l.file} ${cc} ${flags[2]}: first run status ${r.status}${r.timedOut ? ', timed out' : ''}, ` +
              `printed ${JSON.stringify(r.stdout.trim())}`,
          );
        r = again;
      }
      if (bad(r)) {
        const printed = JSON.stringify(r.stdout.trim());
        const status = `status ${r.status}${r.timedOut ? ', timed out' : ''}, printed ${printed}`;
        reports.push(
          `${l.file} ${cc} ${flags[2]}: ${r.stderr.split('\n').find((x) => /error|Sanitizer/.test(x)) ?? status}`,
        );
      }
      rmSync(exe, { force: true });
    },
  );
  const attempted = proven.length + internal.length;
  console.log(`programs ${count} (seeds ${first}-${first + count - 1}, ${size}), variants asked ${count * variants}`);
  console.log(
    `variants/s (kiln emi processes, ${jobs} at a time, base generation ` +
      `included): ${(attempted / wall).toFixed(2)} over ${wall.toFixed(1)} s`,
  );
  console.log(`kiln emi failures (seeds with no variants): ${failed.length}`);
  for (const f of failed.slice(0, 20)) console.log(`  ${f}`);
  console.log(
    `proven: ${proven.length}/${attempted} ` +
      `(${((100 * proven.length) / Math.max(1, attempted)).toFixed(1)}%); internal: ${internal.length}`,
  );
  for (const r of internal.slice(0, 5)) console.log(`  internal: seed ${r.seed} variant ${r.variant}: ${r.internal}`);
  console.log(
    `mutation kinds (share of proven variants carrying the kind): ${[...kinds]
      .sort()
      .map(([k, n]) => `${k} ${((100 * n) / Math.max(1, proven.length)).toFixed(0)}%`)
      .join(', ')}`,
  );
  console.log(
    `pure/const attributes on proven variants: ${contracts.pure} pure, ${contracts.const} const; drawn but ` +
      `not granted by the final program: ${contracts.removed} removed, ${contracts.weakened} const made pure`,
  );
  console.log(
    `variants whose attributes break their final ` +
      `contract: ${contracts.broken}` +
      `${contracts.unchecked ? ` (${contracts.unchecked} variants without a contract audit)` : ''}`,
  );
  console.log(`diffLines share (added+removed lines / variant lines): median ${(100 * median).toFixed(1)}%`);
  console.log(
    `compiled and run: ${runs} (${compilers.join(', ')} at ${levels.join(' ')}); disagreements with the ` +
      `expected line: ${disagreements.length}`,
  );
  for (const d of disagreements.slice(0, 20)) console.log(`  ${d}`);
  console.log(
    `sanitizers (clang ASan+UBSan, clang MSan, gcc UBSan) on ${sanitized.length} variants: ${reports.length} reports`,
  );
  for (const d of reports.slice(0, 20)) console.log(`  ${d}`);
  console.log(`runs that failed once and passed when run again (not counted above): ${flaky.length}`);
  for (const d of flaky.slice(0, 20)) console.log(`  ${d}`);
  rmSync(work, { recursive: true, force: true });
}

main().catch((e) => {
  rmSync(work, { recursive: true, force: true });
  console.error(e);
  process.exit(1);
});
