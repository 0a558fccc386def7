// Cross targets under qemu-user: for each installed cross gcc, N programs generated for its
// target model, each compiled at -O0 -O1 -O2 -Os -O3 and run under the target's qemu, exactly as a
// campaign tests them (testConfiguration: sandbox, limits, emulator prefix). Every binary must
// print its program's expected output; anything else is listed with seed and configuration.
//
//   npm run bench:cross [-- --programs 40 --targets m68k,powerpc --seed 1 --jobs 2]
//   npm run bench:cross -- --smoke     (one program on the first installed target)
//
// Figures per target: programs, tests (program × option set), failures by outcome, the median
// compile and run time of one test, and tests per hour of one core (3600 s / mean test time:
// compile + emulated run, generation excluded). Generation is the same for every target and is
// reported once, in programs per second of this process. Before its programs, each target's model
// is checked against the compiler: a probe prints sizeof, _Alignof, CHAR_MIN's sign and the byte
// order under qemu, and any difference from src/c/target.ts is a failure.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { TARGETS, type TargetModel } from '../src/c/target.js';
import { emitFiles } from '../src/emit/files.js';
import { parsePolicy } from '../src/gen/policy.js';
import { detectCompilers, missingEmulator, type Compiler } from '../src/harness/compilers.js';
import { testConfiguration, type ConfigResult } from '../src/harness/execute.js';
import { buildMatrix, DEFAULT_LIMITS, DEFAULT_OPTION_SETS } from '../src/harness/matrix.js';
import { TempRoot } from '../src/harness/tempdir.js';
import { generateProgram } from '../src/repair/generate.js';
import { pickCrossCompilers } from './lib/cross.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const smoke = process.argv.includes('--smoke');
const programs = Number(arg('programs', smoke ? '1' : '40'));
const seed0 = BigInt(arg('seed', '1'));
const jobs = Number(arg('jobs', '2'));
const wanted = arg('targets', '');
const optionSets = smoke ? ['-O2'] : DEFAULT_OPTION_SETS;

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};

// biome-ignore format: embedded text
const PROBE = `#include <limits.h>
#include <stdio.h>
int main(void) {
  union { unsigned int i; unsigned char c[4]; } u = { 0x01020304u };
  printf("%d %d %d %s %d %d %d %d %d %d\\n", (int)sizeof(long) * 8, (int)sizeof(void *) * 8, CHAR_MIN < 0, u.c[0] == 1 ? "big" : "little",
    (int)_Alignof(short), (int)_Alignof(int), (int)_Alignof(long), (int)_Alignof(long long), (int)_Alignof(void *), (int)_Alignof(double));
  return 0;
}
`;

/** What the model says the probe prints. */
function probeExpected(m: TargetModel): string {
  const a = m.align;
  return (
    `${m.longBits} ${m.pointerBits} ${m.charSigned ? 1 : 0} ${m.endian} ${a.short} ${a.int} ${a.long} ` +
    `${a.longLong} ${a.pointer} ${a.double}`
  );
}

/** Compiles and runs the probe with a cross compiler; its output line, or what went wrong. */
function probe(cc: Compiler): string {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-probe-'));
  try {
    writeFileSync(join(dir, 'probe.c'), PROBE);
    const c = spawnSync(cc.command, ['-std=c11', 'probe.c', '-o', 'probe'], { cwd: dir, encoding: 'utf8' });
    if (c.status !== 0) return `compile failed: ${c.stderr.trim().split('\n')[0]}`;
    const [cmd, ...args] = [...(cc.emulator ?? []), './probe'];
    const r = spawnSync(cmd!, args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    return r.status === 0 ? r.stdout.trim() : `run failed (${r.status ?? r.signal}): ${r.stderr.trim().split('\n')[0]}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const compilers = pickCrossCompilers(await detectCompilers(), wanted);
  if (compilers.length === 0)
    throw new Error('no cross gcc found on PATH: run scripts/ensure-tools.mjs --profile cross (as root)');
  const chosen = smoke ? compilers.slice(0, 1) : compilers;
  console.log(
    `bench:cross: ${programs} programs per target × ${optionSets.join(' ')}; ${chosen.length} ` +
      `targets; ${jobs} tests at a time`,
  );
  const temp = TempRoot.create();
  let genMs = 0;
  let genCount = 0;
  const rows: string[] = [];
  const failures: string[] = [];
  try {
    for (const cc of chosen) {
      const missing = missingEmulator(cc);
      if (missing) {
        rows.push(`${cc.target}: skipped, ${missing} not on PATH`);
        continue;
      }
      const model = TARGETS.find((t) => t.name === cc.target)!;
      const seen = probe(cc);
      if (seen !== probeExpected(model))
        failures.push(
          `${cc.target}: model differs from ${cc.name}: sizeof(long) sizeof(void*) CHAR_MIN<0 endian ` +
            `_Alignof(short int long long-long void* double): compiler '${seen}', model ` +
            `'${probeExpected(model)}'`,
        );
      else console.log(`${cc.target}: model agrees with ${cc.name} (${seen})`);
      const policy = { ...parsePolicy({}), target: cc.target! };
      const configs = buildMatrix([cc], optionSets);
      // Generation and testing overlap: programs are generated on this thread while the
      // compilers and emulators of earlier ones run in child processes, so no core idles while
      // the 300 programs of a full run are drawn.
      type Work = { seed: bigint; files: ReturnType<typeof emitFiles>; expected: string };
      const work: Work[] = [];
      const queue: { w: Work; c: (typeof configs)[number] }[] = [];
      const waiting: (() => void)[] = [];
      let generating = true;
      const results: { seed: bigint; r: ConfigResult }[] = [];
      const started = performance.now();
      const producer = (async () => {
        for (let i = 0n; work.length < programs && i < BigInt(programs * 3); i++) {
          await new Promise((r) => setImmediate(r)); // let finished tests hand over their cores
          const t0 = performance.now();
          const r = generateProgram(seed0 + i, policy, 'csmith');
          genMs += performance.now() - t0;
          genCount++;
          if (!r.ok) continue;
          const w = { seed: seed0 + i, files: emitFiles(r.program, { expected: r.expected }), expected: r.expected };
          work.push(w);
          for (const c of configs) queue.push({ w, c });
          for (const wake of waiting.splice(0)) wake();
        }
        generating = false;
        for (const wake of waiting.splice(0)) wake();
      })();
      await Promise.all([
        producer,
        ...Array.from({ length: jobs }, async () => {
          for (;;) {
            const task = queue.shift();
            if (!task) {
              if (!generating) return;
              await new Promise<void>((r) => waiting.push(r));
              continue;
            }
            const r = await testConfiguration(task.w.files, task.w.expected, task.c, DEFAULT_LIMITS, temp);
            results.push({ seed: task.w.seed, r });
            // Said at once, so a long run's log shows a failure before the run ends.
            if (r.judgement.outcome !== 'ok')
              console.log(`  ${cc.target} seed ${task.w.seed} ${task.c.optionsText}: ${r.judgement.outcome}`);
          }
        }),
      ]);
      const wallS = (performance.now() - started) / 1000;
      const byOutcome = new Map<string, number>();
      for (const { seed, r } of results) {
        byOutcome.set(r.judgement.outcome, (byOutcome.get(r.judgement.outcome) ?? 0) + 1);
        if (r.judgement.outcome !== 'ok')
          failures.push(
            `${cc.target} ` +
              `seed ${seed} ${r.config.compiler.name} ${r.config.optionsText}: ${r.judgement.outcome} ` +
              `${r.judgement.detail ?? ''}`,
          );
      }
      const compileMs = results.map((x) => x.r.compile.durationMs);
      const runMs = results.filter((x) => x.r.run).map((x) => x.r.run!.durationMs);
      const meanTestS = results.reduce((s, x) => s + x.r.durationMs, 0) / results.length / 1000;
      const outcomes = [...byOutcome].map(([k, v]) => `${k} ${v}`).join(', ');
      rows.push(
        `${cc.target} (${cc.version}): ${work.length} programs, ${results.length} tests: ${outcomes}; ` +
          `median compile ${median(compileMs).toFixed(0)} ms, median emulated run ${median(runMs).toFixed(0)} ms; ` +
          `${(3600 / meanTestS).toFixed(0)} tests/hour/core; wall ${wallS.toFixed(1)} s with ${jobs} jobs, ` +
          `generation overlapped`,
      );
      console.log(rows[rows.length - 1]);
    }
  } finally {
    temp.dispose();
  }
  console.log(
    `\ngeneration (all targets): ${genCount} seeds in ${(genMs / 1000).toFixed(1)} ` +
      `s, ${(genCount / (genMs / 1000)).toFixed(2)} programs/s in process`,
  );
  console.log(`\n${rows.join('\n')}`);
  if (failures.length) {
    console.log(`\n${failures.length} tests did not print their expected output:\n${failures.join('\n')}`);
    process.exitCode = 1;
  } else console.log('\nevery test printed its expected output');
}

await main();
