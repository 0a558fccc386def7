// A campaign over GCC's cross back ends: one `kiln fuzz` per target, one after the other, each given
// an equal share of the total time, with the target's cross gcc at -O0 -O1 -O2 -Os -O3 (a campaign
// tests one target model: its programs are generated and interpreted for that model). Each campaign
// is timed from outside as a whole process. Per target:
//   - tests per hour (a test: one program compiled with one option set and run under qemu-user;
//     the emulator's cost is what separates the targets), and programs;
//   - findings, distinct buckets, internal outcomes, findings by outcome.
// Findings stay on disk under --out (one campaign folder per target) for `kiln findings` and
// `kiln reduce`; without --out they go to a scratch folder that is removed at the end.
//
//   npm run bench:cross-campaign [-- --time 60m --targets m68k,hppa,alpha,s390x,powerpc,mips --jobs 2 --out DIR]
//   npm run bench:cross-campaign -- --smoke     (m68k, 10 s)
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { detectCompilers } from '../src/harness/compilers.js';
import { runCampaign, type CampaignFigures } from './lib/campaign.js';
import { pickCrossCompilers } from './lib/cross.js';
import { kilnEntry } from './lib/kiln.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const smoke = process.argv.includes('--smoke');
const totalText = arg('time', smoke ? '10s' : '60m');
const jobs = arg('jobs', '2');
// The smoke run uses m68k, the one cross target the test tools install.
const wanted = arg('targets', smoke ? 'm68k' : '');
const keep = arg('out', '');
const LEVELS = '-O0;-O1;-O2;-Os;-O3';

/** Seconds in `90s`, `10m`, `1h` (the forms `kiln fuzz --time` takes). */
function seconds(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)$/.exec(text);
  if (!m) throw new Error(`--time: '${text}' is not a duration such as 90s, 10m or 1h`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h'];
}

interface Row extends CampaignFigures {
  target: string;
  compiler: string;
}

const work = mkdtempSync(join(tmpdir(), 'kiln-bench-cross-campaign-'));
const outRoot = keep ? resolve(keep) : join(work, 'out');
mkdirSync(outRoot, { recursive: true });
try {
  const kiln = kilnEntry(work, process.argv.includes('--from-source'));
  const chosen = pickCrossCompilers(await detectCompilers(), wanted, true);
  if (wanted) {
    const missing = wanted.split(',').filter((t) => !chosen.some((c) => c.target === t));
    if (missing.length)
      throw new Error(
        `no cross gcc with its qemu on PATH for: ${missing.join(', ')} (scripts/ensure-tools.mjs --profile ` +
          `cross installs them)`,
      );
  }
  if (!chosen.length)
    throw new Error('no cross gcc with its qemu on PATH: run scripts/ensure-tools.mjs --profile cross (as root)');
  const share = Math.max(1, Math.floor(seconds(totalText) / chosen.length));
  console.log(
    `bench:cross-campaign: ${chosen.length} targets (${chosen.map((c) => c.target).join(', ')}), ${share} s ` +
      `each at ${LEVELS.replaceAll(';', ' ')}, -j ${jobs}; findings under ${outRoot}`,
  );

  const rows: Row[] = [];
  for (const cc of chosen) {
    const out = join(outRoot, cc.target!);
    const figures = await runCampaign(
      kiln,
      out,
      ['--time', `${share}s`, '--compilers', cc.name, '--opts', LEVELS, '-j', jobs],
      (share + 1800) * 1000,
      cc.target!,
    );
    const row = { target: cc.target!, compiler: cc.version, ...figures };
    rows.push(row);
    console.log(`${row.target}: ${row.tests} tests, ${row.findings} findings in ${row.sec.toFixed(0)} s`);
  }

  console.log(
    '\n| target | compiler | wall s | programs | tests | tests per hour | findings | distinct buckets | ' +
      'internal | findings by outcome |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const s of rows) {
    const outcomes = [...s.byOutcome].map(([o, n]) => `${o} ${n}`).join(', ') || '-';
    console.log(
      `| ${s.target} | ${s.compiler} | ${s.sec.toFixed(0)} | ${s.programs} | ${s.tests} ` +
        `| ${Math.round((s.tests / s.sec) * 3600)} | ${s.findings} | ${s.buckets} | ${s.internal} ` +
        `| ${outcomes} |`,
    );
  }
  const all = rows.reduce(
    (a, s) => ({
      sec: a.sec + s.sec,
      tests: a.tests + s.tests,
      findings: a.findings + s.findings,
      buckets: a.buckets + s.buckets,
    }),
    { sec: 0, tests: 0, findings: 0, buckets: 0 },
  );
  console.log(
    `| all | | ${all.sec.toFixed(0)} | | ${all.tests} | ${Math.round((all.tests / all.sec) * 3600)} ` +
      `| ${all.findings} | ${all.buckets} | | |`,
  );
  console.log(
    `(a test: one program compiled with one option set and run under qemu-user, with -j ${jobs}; wall s: ` +
      `the whole kiln fuzz process, start-up and end-of-session work included)`,
  );
  if (keep) console.log(`findings: kiln findings --out ${join(outRoot, '<target>')}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
