// End to end: `kiln fuzz` with fault-injecting fake compilers. Every outcome must be classified,
// bucketed, stored (database row + finding folder) and come with a repro.sh that reproduces it.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignFiles } from '../../src/harness/program.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { RUN_DIR_LENGTH } from '../../src/harness/sandbox.js';
import { generateProgram } from '../../src/repair/generate.js';
import { requireTool } from '../support/cc.js';
import { runKiln, type CliResult } from './support/cli.js';
import { writeFake, type Fault } from './support/fakes.js';

interface FindingJson {
  id: string;
  outcome: string;
  bucket: string;
  compiler: string;
  options: string;
  seed: string;
  dir: string;
}

/** Fake compiler name → (fault, seeds it fires on). Seeds 1–4 are tested. */
const FAKES: Record<string, [Fault, number[]]> = {
  'fake-wrong': ['wrong-code', [1, 3]],
  'fake-ice': ['ice', [2, 4]],
  'fake-segv': ['segv', [3]],
  'fake-hang': ['hang', [4]],
  'fake-reject': ['reject', [1]],
  'fake-bincrash': ['binary-crash', [2]],
  'fake-binhang': ['binary-hang', [3]],
  'fake-flaky': ['flaky', [2]],
};

const EXPECTED_FINDINGS = [
  '1 fake-wrong wrong-code',
  '3 fake-wrong wrong-code',
  '2 fake-ice compiler-crash',
  '4 fake-ice compiler-crash',
  '3 fake-segv compiler-crash',
  '4 fake-hang compiler-hang',
  '1 fake-reject rejected-valid',
  '2 fake-bincrash binary-crash',
  '3 fake-binhang binary-hang',
].sort();

describe('kiln fuzz with fault-injecting compilers', () => {
  let work: string;
  let out: string;
  let run: CliResult;
  let findings: FindingJson[];
  let compileDirs: string[];
  let runDirs: string[];

  beforeAll(async () => {
    requireTool('gcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-e2e-'));
    out = join(work, 'out');
    const fakes = Object.entries(FAKES).map(([name, [fault, seeds]]) =>
      writeFake(join(work, 'bin'), name, fault, seeds),
    );
    // Limits come from a config file (YAML), the matrix from flags: both paths are exercised. Short,
    // so the hanging fakes cost little, yet far above a small program's compile and run on a busy
    // machine (3 s turned the compiler check of gcc itself into a failure at a load of 9 on 2 cores).
    const config = join(work, 'kiln.yaml');
    writeFileSync(
      config,
      [
        'limits:',
        '  compile: { timeout: 10s, memory: 2GiB }',
        '  run: { timeout: 5s }',
        'size: small',
        'jobs: 2',
        '',
      ].join('\n'),
    );
    // A private temporary folder, to check that every compile and run folder is removed.
    mkdirSync(join(work, 'tmp'));
    // csmith mode throughout: these checks pin one-file programs (test/harness/multifile.test.ts has the others).
    run = await runKiln(
      [
        'fuzz',
        '--mode',
        'csmith',
        '--config',
        config,
        '--compilers',
        ['gcc', ...fakes].join(','),
        '--opts',
        '-O0',
        '--tests',
        '4',
        '--seed-start',
        '1',
        '--out',
        out,
      ],
      {
        env: { TMPDIR: join(work, 'tmp') },
      },
    );
    // Where fake-wrong ran during the campaign (repro.sh runs below append to the same log).
    compileDirs = readFileSync(join(work, 'bin', 'fake-wrong.dirs'), 'utf8')
      .trim()
      .split('\n');
    runDirs = readFileSync(join(work, 'bin', 'fake-bincrash.state', 'run.dirs'), 'utf8')
      .trim()
      .split('\n');
    const listed = await runKiln(['findings', '--out', out, '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    findings = JSON.parse(listed.stdout) as FindingJson[];
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('classifies every injected fault, and nothing else, as a finding', () => {
    expect(run.status, run.stderr).toBe(0);
    expect(findings.map((f) => `${f.seed} ${f.compiler} ${f.outcome}`).sort()).toEqual(EXPECTED_FINDINGS);
    // Announced on screen, one line each.
    for (const f of findings) expect(run.stdout).toContain(`finding ${f.id}: ${f.outcome}`);
  });

  it('buckets failures by normalised cause', () => {
    const bucket = (seed: string, compiler: string): string =>
      findings.find((f) => f.seed === seed && f.compiler === compiler)!.bucket;
    // Two ICEs with different paths, line:column numbers and addresses are one bucket...
    expect(bucket('2', 'fake-ice')).toBe(bucket('4', 'fake-ice'));
    // (a crash is keyed per family: the fakes wrap gcc, whose --version they print)
    expect(bucket('2', 'fake-ice')).toBe(
      'compiler-crash:gcc:internal compiler error: in expand_expr_real_1, at expr.cc',
    );
    // ...and the other causes get their own keys.
    expect(bucket('3', 'fake-segv')).toBe('compiler-crash:gcc:SIGSEGV');
    expect(bucket('1', 'fake-wrong')).toBe('wrong-code:fake-wrong:-O0');
    expect(bucket('1', 'fake-wrong')).toBe(bucket('3', 'fake-wrong'));
    expect(bucket('2', 'fake-bincrash')).toBe('binary-crash:fake-bincrash:SIGSEGV');
    expect(bucket('4', 'fake-hang')).toBe('compiler-hang:fake-hang');
    expect(bucket('3', 'fake-binhang')).toBe('binary-hang:fake-binhang:-O0');
    expect(bucket('1', 'fake-reject')).toMatch(/^rejected-valid:fake-reject:error: expected ';' before '}' token$/);
  });

  it('stores every test, drops a failure that does not reproduce, and counts it as noise', () => {
    const db = new Database(join(out, 'kiln.db'), { readonly: true });
    try {
      const tests = db
        .prepare('SELECT seed, compiler, outcome, flaky, finding_id FROM tests ORDER BY seed, compiler')
        .all() as { seed: number; compiler: string; outcome: string; flaky: number; finding_id: string | null }[];
      expect(tests).toHaveLength(4 * (Object.keys(FAKES).length + 1));
      expect(tests.filter((t) => t.compiler === 'gcc').every((t) => t.outcome === 'ok')).toBe(true);
      const flaky = tests.filter((t) => t.flaky === 1);
      expect(flaky).toEqual([{ seed: 2, compiler: 'fake-flaky', outcome: 'ok', flaky: 1, finding_id: null }]);
      const seeds = db.prepare('SELECT seed, status FROM seeds ORDER BY seed').all();
      expect(seeds).toEqual([1, 2, 3, 4].map((seed) => ({ seed, status: 'tested' })));
      const c = db
        .prepare(
          'SELECT programs, tests, findings, internal, counters, ended_at, end_reason, running_pid FROM campaigns',
        )
        .get() as Record<string, unknown>;
      expect(c).toMatchObject({
        programs: 4,
        tests: tests.length,
        findings: EXPECTED_FINDINGS.length,
        internal: 0,
        end_reason: 'tests',
        running_pid: null,
      });
      expect(c.ended_at).not.toBeNull();
      expect(JSON.parse(c.counters as string)).toMatchObject({ 'wrong-code': 2, 'compiler-crash': 3, flaky: 1 });
    } finally {
      db.close();
    }
  });

  it('writes a complete finding folder for each finding', () => {
    for (const f of findings) {
      expect(readdirSync(f.dir).sort()).toEqual(['finding.json', 'prog.c', 'repro.sh']);
      const j = JSON.parse(readFileSync(join(f.dir, 'finding.json'), 'utf8')) as Record<string, unknown>;
      expect(j).toMatchObject({
        id: f.id,
        outcome: f.outcome,
        bucket: f.bucket,
        compiler: f.compiler,
        options: '-O0',
        seed: f.seed,
      });
      expect(j.compilerVersion).toMatch(/gcc/);
      expect(j.expected).toMatch(/^checksum = [0-9A-F]{16}$/);
      expect(typeof j.actual).toBe('string');
      expect(typeof j.stderr).toBe('string');
      expect(readFileSync(join(f.dir, 'prog.c'), 'utf8')).toContain(`/* kiln: expected "${j.expected as string}" */`);
    }
    const ice = findings.find((f) => f.compiler === 'fake-ice')!;
    expect(JSON.parse(readFileSync(join(ice.dir, 'finding.json'), 'utf8')).stderr).toContain('internal compiler error');
  });

  it('records the policy, so seed + policy regenerate the very program (for the IR reducer)', () => {
    const f = findings.find((x) => x.compiler === 'fake-wrong')!;
    const j = JSON.parse(readFileSync(join(f.dir, 'finding.json'), 'utf8')) as {
      seed: string;
      expected: string;
      policy: unknown;
    };
    const policy = parsePolicy(j.policy);
    const g = generateProgram(j.seed, policy);
    if (!g.ok) expect.unreachable(`seed ${j.seed} no longer generates: ${g.reason}`);
    expect(g.expected).toBe(j.expected);
    const files = campaignFiles(g, policy);
    expect(files.map((x) => x.name)).toEqual(['prog.c']);
    expect(readFileSync(join(f.dir, 'prog.c'), 'utf8')).toBe(files[0]!.content);
  });

  it('gives each finding a repro.sh that reproduces it on its own (exit 0)', () => {
    for (const f of findings) {
      const r = spawnSync(join(f.dir, 'repro.sh'), [], { cwd: work, encoding: 'utf8', timeout: 30_000 });
      expect(r.status, `${f.id}: ${r.stderr}`).toBe(0);
    }
  });

  it('has repro scripts that say no (exit 1) when the program no longer triggers the bug', () => {
    // C-Reduce runs the test in a folder holding the candidate prog.c: give it one the fake
    // compilers leave alone (another seed in the header) — the check must fail.
    for (const compiler of ['fake-wrong', 'fake-ice', 'fake-binhang']) {
      const f = findings.find((x) => x.compiler === compiler)!;
      const dir = mkdtempSync(join(work, 'cand-'));
      writeFileSync(
        join(dir, 'prog.c'),
        readFileSync(join(f.dir, 'prog.c'), 'utf8').replace(/, seed \d+\./, ', seed 99.'),
      );
      const r = spawnSync(join(f.dir, 'repro.sh'), [], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
      expect(r.status, `${f.id}: ${r.stderr}`).toBe(1);
    }
  });

  it('compiles and runs each program in temporary folders of its own, and removes them all', () => {
    const dirs = compileDirs;
    expect(dirs.length).toBeGreaterThanOrEqual(4 + 2); // four programs, two failures compiled again
    expect(new Set(dirs).size).toBe(dirs.length);
    for (const d of dirs) {
      expect(d).toMatch(new RegExp(`^${join(work, 'tmp')}/kiln-fuzz-${run.pid}-\\w+/cc-\\w+$`));
      expect(existsSync(d)).toBe(false);
    }
    // The binary ran in folders of its own, also removed, each with a path of the same length.
    expect(runDirs).toHaveLength(2); // seed 2, run twice
    for (const d of runDirs) {
      expect(d).toMatch(new RegExp(`^${join(work, 'tmp')}/kiln-fuzz-${run.pid}-\\w+/run-\\w+/runx*$`));
      expect(d).toHaveLength(RUN_DIR_LENGTH);
      expect(existsSync(d)).toBe(false);
    }
    // Only tsx's compile cache (the test runs Kiln's TypeScript sources) may remain.
    expect(readdirSync(join(work, 'tmp')).filter((n) => !n.startsWith('tsx-'))).toEqual([]);
  });
});

describe('kiln fuzz when only the interpreter disagrees', () => {
  it('reports an internal case loudly, keeps it for developers, and counts no compiler finding', async () => {
    requireTool('gcc');
    const work = mkdtempSync(join(tmpdir(), 'kiln-e2e-'));
    try {
      // Two different compilers that both print the same wrong checksum: the interpreter is the odd one out.
      const a = writeFake(join(work, 'bin'), 'agree-a', 'wrong-code', [1]);
      const b = join(work, 'bin', 'agree-b');
      copyFileSync(a, b);
      const out = join(work, 'out');
      const r = await runKiln([
        'fuzz',
        '--mode',
        'csmith',
        '--compilers',
        `${a},${b}`,
        '--opts',
        '-O0',
        '--tests',
        '1',
        '--seed-start',
        '1',
        '--size',
        'small',
        '-j',
        '2',
        '--out',
        out,
      ]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/KILN BUG \(internal\): seed 1/);
      const listed = await runKiln(['findings', '--out', out, '--json']);
      expect(JSON.parse(listed.stdout)).toEqual([]);
      const db = new Database(join(out, 'kiln.db'), { readonly: true });
      try {
        expect(db.prepare('SELECT id, seed FROM internal_cases').all()).toEqual([{ id: '1-1', seed: 1 }]);
        expect(db.prepare('SELECT DISTINCT outcome FROM tests').all()).toEqual([{ outcome: 'internal' }]);
        expect(db.prepare('SELECT findings, internal FROM campaigns').get()).toEqual({ findings: 0, internal: 1 });
      } finally {
        db.close();
      }
      expect(existsSync(join(out, 'internal', '1-1', 'prog.c'))).toBe(true);
      expect(
        JSON.parse(readFileSync(join(out, 'internal', '1-1', 'internal.json'), 'utf8')).configurations,
      ).toHaveLength(2);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('kiln fuzz with sanitizer builds', () => {
  it('puts no address-space limit on them (ASan reserves terabytes of shadow memory)', async () => {
    requireTool('gcc');
    // The same binary under the campaign's default 2 GiB limit cannot even start: the check is meaningful.
    const probe = mkdtempSync(join(tmpdir(), 'kiln-asan-'));
    try {
      writeFileSync(join(probe, 'p.c'), 'int main(void) { return 0; }\n');
      expect(spawnSync('gcc', ['-fsanitize=address', 'p.c', '-o', 'p'], { cwd: probe }).status).toBe(0);
      expect(spawnSync('prlimit', [`--as=${2048 * 1024 * 1024}`, '--', './p'], { cwd: probe }).status).not.toBe(0);
      const out = join(probe, 'out');
      const r = await runKiln([
        'fuzz',
        '--mode',
        'csmith',
        '--compilers',
        'gcc',
        '--opts',
        '-O1 -fsanitize=address,undefined',
        '--tests',
        '1',
        '--size',
        'small',
        '-j',
        '1',
        '--out',
        out,
      ]);
      expect(r.status, r.stderr).toBe(0);
      const db = new Database(join(out, 'kiln.db'), { readonly: true });
      try {
        expect(db.prepare('SELECT options, outcome FROM tests').all()).toEqual([
          { options: '-O1 -fsanitize=address,undefined', outcome: 'ok' },
        ]);
      } finally {
        db.close();
      }
    } finally {
      rmSync(probe, { recursive: true, force: true });
    }
  });
});
