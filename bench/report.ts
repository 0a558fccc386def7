// bench:report — the report of a long campaign: 100,000 tests and 5,000 findings synthesised in a
// store (25 configurations, a week of timestamps, ~400 finding groups of skewed sizes), written by
// `kiln report` as a whole process, then loaded in headless Chromium.
//
//   npm run bench:report [-- --smoke] [--loads N] [--keep]
//
// Prints: the page's size (target < 5 MB); `kiln report`'s wall time (a whole process: start-up,
// SQL aggregation, rendering, writing); and the page's load time in Chromium (target < 2 s), from
// navigation start to the page's first render being done (every top-level plot drawn), median of
// N loads each in a fresh page, with the main thread's CPU time in those loads and an empty page's
// load time as the machine's baseline (on a busy machine the wall clock mostly measures the
// others). --smoke: 2,000 tests and 100 findings, 2 loads.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchChromium, openReport } from '../test/report/support/browser.js';
import { synthesiseCampaign, type SynthFinding, type SynthProgram } from '../test/report/support/synth.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const COMPILERS = ['gcc', 'gcc-11', 'clang', 'clang-15', 'tcc'].map((name) => ({ name, version: `${name} (bench)` }));
const OPTIONS = ['-O0', '-O1', '-O2', '-Os', '-O3'];
const OUTCOMES = ['wrong-code', 'compiler-crash', 'binary-crash', 'compiler-hang', 'binary-hang', 'rejected-valid'];
const WEEK_MINUTES = 7 * 24 * 60;

interface Args {
  smoke: boolean;
  loads: number;
  keep: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { smoke: false, loads: 5, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    if (x === '--smoke') a.smoke = true;
    else if (x === '--keep') a.keep = true;
    else if (x === '--loads') a.loads = Number(argv[++i]);
    else throw new Error(`bench:report: unknown argument '${x}' (expected --smoke, --loads N, --keep)`);
  }
  if (!(a.loads >= 1)) throw new Error('bench:report: --loads needs a positive count');
  if (a.smoke) a.loads = Math.min(a.loads, 2);
  return a;
}

/** A small deterministic generator (the benchmark's campaign is the same on every run). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Programs × 25 configurations = tests; findings spread over programs with Zipf-like group sizes. */
function campaign(tests: number, findings: number): SynthProgram[] {
  const rnd = lcg(42);
  const programs = Math.ceil(tests / (COMPILERS.length * OPTIONS.length));
  const groups = Math.max(1, Math.round(findings / 12));
  const perProgram = new Map<number, SynthFinding[]>();
  const used = new Set<string>();
  for (let n = 0; n < findings; ) {
    const seed = 1 + Math.floor(rnd() * programs);
    const k = COMPILERS[Math.floor(rnd() * COMPILERS.length)]!;
    const o = OPTIONS[Math.floor(rnd() * OPTIONS.length)]!;
    if (used.has(`${seed} ${k.name} ${o}`)) continue;
    used.add(`${seed} ${k.name} ${o}`);
    const g = Math.min(groups - 1, Math.floor(groups * rnd() ** 3));
    const outcome = OUTCOMES[g % OUTCOMES.length]!;
    const f: SynthFinding = {
      compiler: k.name,
      options: o,
      outcome,
      bucket: `${outcome}:${k.name}:group-${g}`,
      ...(g % 2 === 0 ? { fingerprint: `${k.name.startsWith('clang') ? 'clang:Pass' : 'gcc:-fpass-'}${g}` } : {}),
      ...(rnd() < 0.1 ? { reduced: `int g_${g};\nint main(void) {\n  return g_${g};\n}\n` } : {}),
      ...(outcome !== 'wrong-code'
        ? { stderr: `prog.c:${g}:1: internal compiler error: in pass_${g}, at file.cc:${g * 7}` }
        : {}),
    };
    const list = perProgram.get(seed) ?? [];
    list.push(f);
    perProgram.set(seed, list);
    n++;
  }
  return Array.from({ length: programs }, (_, i) => ({
    seed: i + 1,
    minute: ((i + 0.5) * WEEK_MINUTES) / programs,
    genMs: 50 + 400 * rnd(),
    findings: perProgram.get(i + 1) ?? [],
  }));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const tests = args.smoke ? 2_000 : 100_000;
  const findings = args.smoke ? 100 : 5_000;
  const work = mkdtempSync(join(tmpdir(), 'kiln-bench-report-'));
  const out = join(work, 'out');
  try {
    let t = performance.now();
    const programs = campaign(tests, findings);
    synthesiseCampaign(out, {
      start: '2026-01-01T00:00:00.000Z',
      compilers: COMPILERS,
      optionSets: OPTIONS,
      mode: 'mixed',
      size: 'medium',
      programs,
      endMinute: WEEK_MINUTES,
      folders: true,
    });
    console.log(
      `store: ${programs.length} programs × ${COMPILERS.length * OPTIONS.length} configurations ` +
        `= ${(programs.length * 25).toLocaleString()} tests, ${findings.toLocaleString()} findings ` +
        `(synthesised in ${((performance.now() - t) / 1000).toFixed(1)} s)`,
    );

    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    t = performance.now();
    const r = spawnSync(
      process.execPath,
      ['--import', tsx, join(ROOT, 'src/cli/main.ts'), 'report', '--out', out, '--sample', '0'],
      { encoding: 'utf8' },
    );
    const writeMs = performance.now() - t;
    if (r.status !== 0) throw new Error(`kiln report failed (${r.status}): ${r.stderr}`);
    const file = join(out, 'report.html');
    const bytes = statSync(file).size;
    console.log(
      `kiln report (whole process, from TypeScript sources through tsx, --sample 0): ${(writeMs / 1000).toFixed(2)} s`,
    );
    console.log(
      `page size: ${(bytes / 1e6).toFixed(2)} MB (${bytes.toLocaleString()} bytes; target < 5 ` +
        `MB) ${bytes < 5e6 ? 'OK' : 'OVER'}`,
    );

    const browser = await launchChromium();
    try {
      // The same browser loads an empty page between report loads: the machine's own cost of a
      // page load at that moment, to read the report's figure against.
      const blank = join(work, 'blank.html');
      writeFileSync(blank, '<!doctype html><body><script>document.body.dataset.ready = "done"</script></body>');
      const loads: number[] = [];
      const blanks: number[] = [];
      const cpu: number[] = [];
      const scripts: number[] = [];
      for (let i = 0; i < args.loads; i++) {
        const b = await openReport(browser, blank);
        blanks.push(b.loadMs);
        await b.page.close();
        const o = await openReport(browser, file);
        if (o.errors.length || o.requests.length)
          throw new Error(`page errors ${JSON.stringify(o.errors)}, requests ${JSON.stringify(o.requests)}`);
        loads.push(o.loadMs);
        cpu.push(o.mainThread.cpuMs);
        scripts.push(o.mainThread.scriptMs);
        await o.page.close();
      }
      const m = median(loads);
      console.log(
        `load in Chromium (wall clock, navigation → first render done, fresh page each): median ${m} ms ` +
          `of ${loads.length} [${loads.join(', ')}]; target < 2000 ms ${m < 2000 ? 'OK' : 'OVER'}`,
      );
      console.log(
        `  CPU time of the page's main thread in those loads (CDP ThreadTime; other load on the machine ` +
          `barely moves it): median ${median(cpu)} ms [${cpu.join(', ')}]; time in scripts (wall) ` +
          `median ${median(scripts)} ms`,
      );
      console.log(
        `  an empty page in the same browser, loaded before each (the machine's baseline): ` +
          `median ${median(blanks)} ms [${blanks.join(', ')}]; load average ${loadavg()[0]!.toFixed(1)} ` +
          `on ${availableParallelism()} cores`,
      );
    } finally {
      await browser.close();
    }
    if (args.keep) console.log(`kept: ${file}`);
  } finally {
    if (!args.keep) rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
