// Soundness of profile-guided configurations (docs/profiles.md): N programs generated in csmith
// mode, each tested exactly as a campaign tests it (testConfiguration: the instrumented build, its
// run, the profile, the build under test, sandbox, limits, oracle) with gcc-12 and clang-14 at -O2
// with the true profile and with a perturbed one. Every build must print the program's expected
// line, whatever the profile says: the target is 0 mismatches. Any other outcome is listed with
// its seed and configuration (a finding to look at with kiln fuzz --seed-start SEED --tests 1).
//
//   npm run bench:profile [-- --programs 200 --seed 1 --compilers gcc-12,clang-14 --jobs N]
//   npm run bench:profile -- --smoke     (2 programs)
// SIGINT or SIGTERM stops after the tests running and prints the figures of the tests done.
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { emitFiles, type EmittedFile } from '../src/emit/files.js';
import { parsePolicy } from '../src/gen/policy.js';
import { compilerCapabilities, policyFor } from '../src/harness/capabilities.js';
import { resolveCompilers } from '../src/harness/compilers.js';
import { testConfiguration } from '../src/harness/execute.js';
import { buildMatrix, DEFAULT_LIMITS, type Configuration } from '../src/harness/matrix.js';
import { refuseUnsupportedProfiles } from '../src/harness/profile-probe.js';
import { TempRoot } from '../src/harness/tempdir.js';
import { generateProgram } from '../src/repair/generate.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

const smoke = process.argv.includes('--smoke');
const programs = Number(arg('programs', smoke ? '2' : '200'));
const seed0 = BigInt(arg('seed', '1'));
const jobs = Number(arg('jobs', String(availableParallelism())));
const compilers = await resolveCompilers(arg('compilers', 'gcc-12,clang-14').split(',').filter(Boolean));
const configs = buildMatrix(compilers, ['-O2 +profile', '-O2 +profile=perturbed']);
await refuseUnsupportedProfiles(configs);

const t0 = performance.now();
const sources: { seed: bigint; files: EmittedFile[]; expected: string }[] = [];
// What every compiler accepts: each program is built by each.
const policy = policyFor(parsePolicy({}), await Promise.all(compilers.map((c) => compilerCapabilities(c))), 'every');
for (let s = seed0; sources.length < programs; s++) {
  const r = generateProgram(s, policy, 'csmith');
  if (r.ok) sources.push({ seed: s, files: emitFiles(r.program, { expected: r.expected }), expected: r.expected });
}
const genS = (performance.now() - t0) / 1000;
const names = configs.map((c) => `${c.compiler.name} ${c.optionsText}`).join(', ');
console.log(
  `bench:profile: ${programs} csmith programs (seeds from ${seed0}) × ${names}; ${jobs} jobs; ` +
    `generated in ${genS.toFixed(1)} s`,
);

interface Tally {
  tests: number;
  ok: number;
  mismatches: number;
  other: number;
  ms: number;
}
const tally = new Map<Configuration, Tally>(
  configs.map((c) => [c, { tests: 0, ok: 0, mismatches: 0, other: 0, ms: 0 }]),
);
const odd: string[] = [];
const work = sources.flatMap((p) => configs.map((c) => ({ p, c })));
const temp = TempRoot.create();
let next = 0;
let done = 0;
// SIGINT or SIGTERM: the tests running finish, no new one starts, and the figures so far are printed.
let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => (stopping = true));
const t1 = performance.now();
const worker = async (): Promise<void> => {
  while (next < work.length && !stopping) {
    const { p, c } = work[next++]!;
    const r = await testConfiguration(p.files, p.expected, c, DEFAULT_LIMITS, temp);
    const t = tally.get(c)!;
    t.tests++;
    t.ms += r.durationMs;
    if (r.judgement.outcome === 'ok') t.ok++;
    else {
      if (r.judgement.outcome === 'wrong-code') t.mismatches++;
      else t.other++;
      odd.push(
        `seed ${p.seed}, ${c.compiler.name} ${c.optionsText}: ${r.judgement.outcome}` +
          ` (${r.profile?.stage ?? 'use'} build): ${r.judgement.detail ?? ''}`.slice(0, 300),
      );
    }
    if (++done % 50 === 0)
      console.log(`  ${done}/${work.length} tests (${((performance.now() - t1) / 1000).toFixed(0)} s)`);
  }
};
try {
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
} finally {
  temp.dispose();
}
const wallS = (performance.now() - t1) / 1000;

console.log('\n| configuration | tests | ok | mismatches | other failures | mean s per test |');
console.log('|---|---|---|---|---|---|');
for (const [c, t] of tally)
  console.log(
    `| ${c.compiler.name} ${c.optionsText} | ${t.tests} | ${t.ok} | ${t.mismatches} | ${t.other} | ` +
      `${(t.ms / Math.max(1, t.tests) / 1000).toFixed(2)} |`,
  );
const sum = (kind: 'true' | 'perturbed'): number =>
  [...tally].filter(([c]) => c.profile === kind).reduce((n, [, t]) => n + t.mismatches, 0);
const mismatches = sum('true') + sum('perturbed');
const other = [...tally.values()].reduce((n, t) => n + t.other, 0);
console.log(
  `\nprofile soundness: ${programs} programs × ${configs.length} configurations, ${done} tests: ` +
    `${mismatches} mismatches (true profile ${sum('true')}, perturbed ${sum('perturbed')}), ${other} other ` +
    `failures; ${wallS.toFixed(1)} s wall`,
);
for (const line of odd.slice(0, 40)) console.log(`  ${line}`);
process.exitCode = mismatches + other > 0 ? 1 : 0;
