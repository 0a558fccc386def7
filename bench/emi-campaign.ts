// `kiln fuzz` with and without `--emi`, the same wall time and compiler matrix, one after the
// other in one run, both timed from outside as whole processes:
//   - tests per hour (a test: one program or variant compiled and run with one configuration),
//     findings, distinct buckets, internal outcomes, per side;
//   - optimisation remarks per thousand lines of test code (the code before `main`, Kiln's checksum
//     harness left out), of EMI variants against their bases: gcc -O3 -fopt-info-all and
//     clang -O3 -Rpass=.*, over `kiln emi --seed S --variants K` for the first N seeds.
//
// Findings stay on disk under --out (DIR/plain and DIR/emi-K) for `kiln findings` and `kiln reduce`;
// without --out they go to a scratch folder that is removed at the end.
//
//   npm run bench:emi-campaign [-- --time 10m --emi 4 --compilers gcc-11,gcc-12,clang-13,clang-16,tcc,pcc
//                                  --jobs 2 --remark-seeds 10 --remark-variants 4 --out DIR]
//   (--smoke: 10 s each, gcc only)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runProcess } from '../src/harness/process.js';
import { runCampaign, type CampaignFigures } from './lib/campaign.js';
import { kilnEntry } from './lib/kiln.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}
const smoke = process.argv.includes('--smoke');
const time = arg('time', smoke ? '10s' : '10m');
const k = Number(arg('emi', '4'));
const wanted = arg('compilers', smoke ? 'gcc' : 'gcc-11,gcc-12,clang-13,clang-16,tcc,pcc').split(',');
const jobs = arg('jobs', '2');
const remarkSeeds = Number(arg('remark-seeds', smoke ? '1' : '10'));
const remarkVariants = Number(arg('remark-variants', smoke ? '1' : '4'));
const keep = arg('out', '');
const LEVELS = '-O0;-O1;-O2;-Os;-O3';

async function which(cc: string): Promise<boolean> {
  return (await runProcess('sh', ['-c', `command -v ${cc}`], { timeoutMs: 5000 })).status === 0;
}

interface Side extends CampaignFigures {
  label: string;
}

const work = mkdtempSync(join(tmpdir(), 'kiln-bench-emi-campaign-'));
try {
  const kiln = kilnEntry(work, process.argv.includes('--from-source'));
  const compilers: string[] = [];
  for (const c of wanted) if (await which(c)) compilers.push(c);
  const missing = wanted.filter((c) => !compilers.includes(c));
  if (missing.length)
    console.log(
      `not on PATH, left out of both sides: ${missing.join(', ')} (scripts/ensure-tools.mjs --profile fuzz ` +
        `installs them)`,
    );
  if (!compilers.length) throw new Error('bench:emi-campaign: none of the compilers is on PATH');

  const campaign = async (label: string, extra: string[]): Promise<Side> => ({
    label,
    ...(await runCampaign(
      kiln,
      keep ? join(resolve(keep), label) : join(work, label),
      ['--time', time, '--compilers', compilers.join(','), '--opts', LEVELS, '-j', jobs, ...extra],
      4 * 3600_000,
      label,
    )),
  });

  console.log(
    `kiln fuzz --time ${time}, compilers ${compilers.join(', ')} at ${LEVELS.replaceAll(';', ' ')}, ` +
      `-j ${jobs}; first without EMI, then with --emi ${k}`,
  );
  const sides = [await campaign('plain', []), await campaign(`emi-${k}`, ['--emi', String(k)])];
  console.log(
    '\n| side | wall s | programs | tests | tests per hour | findings | distinct buckets | internal | ' +
      'findings by outcome |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const s of sides) {
    const outcomes = [...s.byOutcome].map(([o, n]) => `${o} ${n}`).join(', ') || '-';
    console.log(
      `| ${s.label} | ${s.sec.toFixed(0)} | ${s.programs} | ${s.tests} ` +
        `| ${Math.round((s.tests / s.sec) * 3600)} | ${s.findings} | ${s.buckets} | ${s.internal} ` +
        `| ${outcomes} |`,
    );
  }
  console.log(
    '(programs: bases and variants alike, each a program Kiln generated and compiled; wall s includes ' +
      'start-up and the end-of-session work)',
  );
  if (keep) console.log(`findings: kiln findings --out ${join(resolve(keep), '<side>')}`);

  // Remarks per thousand lines of test code, variants against their bases.
  const remarkCompilers = [
    {
      name: 'gcc',
      cmd: ['gcc', '-O3', '-w', '-fopt-info-all', '-c', '-o', '/dev/null'],
      re: /^[^:\n]+\.c:(\d+):\d+: (?:optimized|missed|note): /gm,
    },
    {
      name: 'clang',
      cmd: ['clang', '-O3', '-w', '-Rpass=.*', '-c', '-o', '/dev/null'],
      re: /^[^:\n]+\.c:(\d+):\d+: remark: /gm,
    },
  ].filter((c) => !smoke || c.name === 'gcc');
  const totals = new Map<string, { remarks: number; lines: number }>();
  for (let seed = 1; seed <= remarkSeeds; seed++) {
    const dir = join(work, `remarks-${seed}`);
    const e = await runProcess(
      process.execPath,
      [...kiln, 'emi', '--seed', String(seed), '--variants', String(remarkVariants), '-o', dir, '--json'],
      { timeoutMs: 600_000, maxOutputBytes: 1 << 24 },
    );
    if (e.status !== 0) throw new Error(`kiln emi --seed ${seed} failed: ${e.stderr}`);
    for (const line of e.stdout.trim().split('\n')) {
      const v = JSON.parse(line) as { variant: number; file: string };
      const text = readFileSync(v.file, 'utf8');
      const mainLine = text.split('\n').findIndex((l) => /^int main\(/.test(l)) + 1;
      const testLines = mainLine > 0 ? mainLine - 1 : text.split('\n').length;
      for (const c of remarkCompilers) {
        const r = await runProcess(c.cmd[0]!, [...c.cmd.slice(1), v.file], {
          timeoutMs: 600_000,
          maxOutputBytes: 1 << 28,
        });
        const out = r.stdout + r.stderr;
        let n = 0;
        for (const m of out.matchAll(c.re)) if (Number(m[1]) < mainLine || mainLine === 0) n++;
        const key = `${c.name} ${v.variant === 0 ? 'bases' : 'variants'}`;
        const t = totals.get(key) ?? { remarks: 0, lines: 0 };
        t.remarks += n;
        t.lines += testLines;
        totals.set(key, t);
      }
    }
  }
  console.log(
    `\nOptimisation remarks per thousand lines of test code (before main), seeds ` +
      `1-${remarkSeeds}, ${remarkVariants} variants each`,
  );
  console.log('| compiler | bases | variants | ratio |');
  console.log('|---|---|---|---|');
  for (const c of remarkCompilers) {
    const b = totals.get(`${c.name} bases`)!;
    const v = totals.get(`${c.name} variants`)!;
    const rb = (1000 * b.remarks) / b.lines;
    const rv = (1000 * v.remarks) / v.lines;
    console.log(`| ${c.name} | ${rb.toFixed(1)} | ${rv.toFixed(1)} | ${(rv / rb).toFixed(2)} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
