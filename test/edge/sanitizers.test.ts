// `kiln fuzz --sanitizers`: programs are drawn per seed (UB on purpose or UB-free), real gcc and
// clang sanitizers find every injected UB at -O0 and raise no false alarm on UB-free programs, and
// a compiler wrapper that silently drops -fsanitize=… yields sanitizer-miss findings (with the
// survival evidence and a repro.sh that reproduces them), never a finding on a UB-free program.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizerMatrix, testSanitizerProgram, unclaimed } from '../../src/edge/sancampaign.js';
import { parseAsan } from '../../src/edge/reports.js';
import { reportsSite, survival } from '../../src/edge/sanjudge.js';
import {
  SANITIZER_OF,
  sanitizerDraw,
  sanitizerFlags,
  sanitizerProgram,
  type SanitizedRun,
} from '../../src/edge/sanitize.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { interpret } from '../../src/interp/interpret.js';
import { resolveCompilers } from '../../src/harness/compilers.js';
import { buildMatrix, DEFAULT_LIMITS } from '../../src/harness/matrix.js';
import { TempRoot } from '../../src/harness/tempdir.js';
import { runProcess } from '../../src/harness/process.js';
import { plainC, requireTool } from '../support/cc.js';
import { runKiln } from '../harness/support/cli.js';

// Built by gcc and clang with their sanitizers, misses checked with Eva: C all of them parse.
const policy = plainC(parsePolicy({}, 'small'));
const work = mkdtempSync(join(tmpdir(), 'kiln-sanitizers-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('sanitizer programs', () => {
  it('are drawn from the seed: about half with UB, of every kind but unsequenced, one program per seed', () => {
    const draws = Array.from({ length: 400 }, (_, i) => sanitizerDraw(BigInt(i + 1)));
    const ub = draws.filter((d) => d !== undefined);
    expect(ub.length).toBeGreaterThan(160);
    expect(ub.length).toBeLessThan(240);
    expect(new Set(ub)).toEqual(new Set(Object.keys(SANITIZER_OF)));
    expect(draws.map((_, i) => sanitizerDraw(BigInt(i + 1)))).toEqual(draws);
    for (let seed = 1n; seed <= 4n; seed++) {
      const a = sanitizerProgram(seed, policy);
      const b = sanitizerProgram(seed, policy);
      expect(a.ok && b.ok && a.files[0]!.content === b.files[0]!.content).toBe(true);
      if (a.ok && a.ub) {
        // The interpreter's first UB is the injected site, of the drawn kind.
        const run = interpret(a.ub.injection.program);
        expect(!run.ok && run.ub.node).toBe(a.ub.injection.site);
        expect(a.files[0]!.content.split('\n')[0]).toContain(`"${a.ub.kind}" at line ${a.ub.location.line}`);
      }
    }
  });

  it("reads the program's innermost frame, and never counts a frame without a line (inlined code) as a miss", () => {
    // clang -O2 inlined func_2 into func_1 and lost the access's line: the next frame's line is
    // the call's, not the access's.
    const inlined = [
      '==7402==ERROR: AddressSanitizer: global-buffer-overflow on address 0x56120540bba8 at pc ' +
        '0x5612053d6c5e bp 0x7fff0259f2d0 sp 0x7fff0259f2c8',
      'READ of size 2 at 0x56120540bba8 thread T0',
      '    #0 0x5612053d6c5d in func_2 /tmp/x/prog.c',
      '    #1 0x5612053d5ef3 in func_1 /tmp/x/prog.c:142:13',
      '    #2 0x5612053d5ef3 in main /tmp/x/prog.c:762:5',
      '    #3 0x7fb503958249 in __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16',
    ].join('\n');
    const r = parseAsan(inlined, ['prog.c']);
    expect(r).toMatchObject({ kind: 'out-of-bounds', file: 'prog.c' });
    expect(r?.line).toBeUndefined();
    expect(reportsSite(r, 'out-of-bounds', { line: 637, column: 22 })).toBe(true);
    expect(reportsSite(r, 'null-dereference', { line: 637, column: 22 })).toBe(false);
    const located = parseAsan(inlined.replace('in func_2 /tmp/x/prog.c\n', 'in func_2 /tmp/x/prog.c:637:22\n'), [
      'prog.c',
    ]);
    expect(located).toMatchObject({ line: 637, column: 22 });
    expect(reportsSite(located, 'out-of-bounds', { line: 640, column: 3 })).toBe(false);
  });

  it('does not count a miss whose site the reference does not report', () => {
    const at = { line: 10, column: 3 };
    const run = (line?: number): SanitizedRun =>
      ({
        report: line === undefined ? undefined : { tool: 'ubsan', kind: 'shift', line, message: 'UBSan: shift' },
      }) as unknown as SanitizedRun;
    expect(reportsSite(run(10).report, 'shift', at)).toBe(true);
    expect(reportsSite(run(11).report, 'shift', at)).toBe(false);
    expect(survival('shift', at, true, { by: 'ref -O0', run: run(10) }, { by: 'ref -O2', run: run(10) }).survives).toBe(
      true,
    );
    expect(
      survival('shift', at, false, { by: 'ref -O0', run: run(10) }, { by: 'ref -O2', run: run(10) }).survives,
    ).toBe(false);
    expect(survival('shift', at, true, { by: 'ref -O0', run: run(10) }, { by: 'ref -O2', run: run() }).survives).toBe(
      false,
    );
    expect(survival('shift', at, true, { by: 'ref -O0', run: run() }, undefined).survives).toBe(false);
  });
});

describe('real gcc and clang sanitizers', () => {
  let temp: TempRoot;
  beforeAll(() => {
    requireTool('gcc');
    requireTool('clang');
    temp = TempRoot.create();
  });
  afterAll(() => temp.dispose());

  it('report every injected UB at -O0 and -O2 or have the miss checked, and raise no false alarm on UB-free programs', {
    timeout: 600_000,
  }, async () => {
    const configs = buildMatrix(await resolveCompilers(['gcc', 'clang']), ['-O0', '-O2']);
    let ubFree = 0;
    let ubPrograms = 0;
    // Seeds 1-5 draw five different UB kinds, 10 is UB-free (checked by the counts below): one
    // UB-free program goes through every configuration the same way as another.
    for (const seed of [1n, 2n, 3n, 4n, 5n, 10n]) {
      const p = sanitizerProgram(seed, policy);
      if (!p.ok) continue;
      const r = await testSanitizerProgram(p, { configurations: configs, limits: DEFAULT_LIMITS, temp });
      expect(r.results.length).toBeGreaterThan(0);
      for (const f of r.results) {
        // Real compilers: no false alarm, no miss the survival check believes, nothing else either.
        expect(f.outcome, `seed ${seed} ${f.config.slug}: ${f.result.judgement.detail ?? ''}`).toBe('ok');
        if (p.ub && f.config.optionsText.startsWith('-O0'))
          expect(f.result.judgement.detail, `seed ${seed} ${f.config.slug}`).toBeUndefined();
      }
      if (p.ub) ubPrograms++;
      else {
        ubFree++;
        // ASan+UBSan on both compilers and MSan on clang, at each level.
        expect(r.results.map((f) => f.config.slug).sort()).toEqual([
          'clang-O0-asan-ubsan',
          'clang-O0-msan',
          'clang-O2-asan-ubsan',
          'clang-O2-msan',
          'gcc-O0-asan-ubsan',
          'gcc-O2-asan-ubsan',
        ]);
      }
    }
    expect(ubFree).toBe(1);
    expect(ubPrograms).toBeGreaterThanOrEqual(3);
  });

  it('skips configurations of compilers without -fsanitize', async () => {
    const [gcc] = await resolveCompilers(['gcc']);
    const tcc = { ...gcc!, name: 'tcc', family: 'tcc' as const, realPath: '/usr/bin/tcc' };
    const m = sanitizerMatrix(buildMatrix([gcc!, tcc], ['-O0']));
    expect(m.tested.map((c) => c.compiler.name)).toEqual(['gcc']);
    expect(m.skipped.map((c) => c.compiler.name)).toEqual(['tcc']);
  });
});

interface Listed {
  id: string;
  outcome: string;
  compiler: string;
  bucket: string;
  dir: string;
}

describe('kiln fuzz --sanitizers', () => {
  let nosan: string;
  beforeAll(() => {
    requireTool('gcc');
    requireTool('clang');
    const bin = join(work, 'bin');
    mkdirSync(bin, { recursive: true });
    nosan = join(bin, 'gcc-nosan');
    // Fault injection: a gcc that silently drops every -fsanitize=… argument.
    writeFileSync(
      nosan,
      '#!/bin/sh\nfor a; do shift; case $a in -fsanitize=*) ;; *) set -- "$@" "$a";; esac; done\nexec gcc "$@"\n',
    );
    chmodSync(nosan, 0o755);
  });

  it('turns a compiler that drops -fsanitize into sanitizer-miss findings, and UB-free programs into none', {
    timeout: 600_000,
  }, async () => {
    const out = join(work, 'fault');
    const r = await runKiln([
      'fuzz',
      '--sanitizers',
      '--compilers',
      `${nosan},clang`,
      '--opts',
      '-O2',
      '--size',
      'small',
      '--tests',
      '6',
      '--seed-start',
      '1',
      '-j',
      '2',
      '--out',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const listed = await runKiln(['findings', '--out', out, '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    const findings = JSON.parse(listed.stdout) as Listed[];
    expect(findings.length).toBeGreaterThan(0);
    // UB programs gcc has a sanitizer for, but not the underflows of globals ASan does not claim.
    const ubSeeds = new Set(
      Array.from({ length: 6 }, (_, i) => BigInt(i + 1)).filter((s) => {
        const p = sanitizerProgram(s, policy);
        return p.ok && p.ub !== undefined && p.ub.kind !== 'uninitialised-read' && !unclaimed(p.ub.variant);
      }),
    );
    expect(ubSeeds.size).toBeGreaterThan(0);
    const missed = new Set<bigint>();
    const reproduced = new Set<string>();
    for (const f of findings) {
      expect(f.outcome).toBe('sanitizer-miss');
      expect(f.compiler).toBe('gcc-nosan');
      const j = JSON.parse(readFileSync(join(f.dir, 'finding.json'), 'utf8')) as {
        seed: string;
        bucket: string;
        sanitizer: {
          name: string;
          ub: { kind: string; line: number };
          survival: { survives: boolean; reachedBy: string };
        };
      };
      const seed = BigInt(j.seed);
      // Never a UB-free program.
      expect(sanitizerDraw(seed)).toBe(j.sanitizer.ub.kind);
      missed.add(seed);
      expect(j.bucket).toMatch(new RegExp(`^sanitizer-miss:gcc-nosan:${j.sanitizer.name}:${j.sanitizer.ub.kind}:-O2$`));
      expect(j.sanitizer.survival.survives).toBe(true);
      expect(j.sanitizer.survival.reachedBy).toMatch(/^clang -O0/);
      // repro.sh reproduces the miss with the wrapper (one finding per sanitizer: the scripts of one
      // sanitizer differ only in the program and its line)…
      if (reproduced.has(j.sanitizer.name)) continue;
      reproduced.add(j.sanitizer.name);
      const repro = await runProcess('sh', [join(f.dir, 'repro.sh')], { cwd: f.dir, timeoutMs: 60_000 });
      expect(repro.status, repro.stderr).toBe(0);
    }
    expect([...reproduced].sort()).toEqual(['asan', 'ubsan']);
    // …every UB program gcc has a sanitizer for was missed.
    expect([...missed].sort()).toEqual([...ubSeeds].sort());

    // kiln reduce keeps the miss and the injected UB: the reduced program is smaller, its repro.sh
    // reproduces the miss, and clang's sanitizer still reports the UB in it.
    const f = findings.find((x) => x.bucket.includes(':-O2'))!;
    // Three candidates: enough for a smaller program (274 lines to 229 here), each one a compile
    // and run of the wrapper.
    const red = await runKiln(['reduce', f.dir, '-j', '2', '--max-candidates', '3']);
    expect(red.status, red.stderr).toBe(0);
    const reduced = readFileSync(join(f.dir, 'reduced.c'), 'utf8');
    expect(reduced.length).toBeLessThan(readFileSync(join(f.dir, 'prog.c'), 'utf8').length);
    const again = await runProcess('sh', [join(f.dir, 'reduced', 'repro.sh')], {
      cwd: join(f.dir, 'reduced'),
      timeoutMs: 60_000,
    });
    expect(again.status, again.stderr).toBe(0);
    const j = JSON.parse(readFileSync(join(f.dir, 'finding.json'), 'utf8')) as {
      sanitizer: { name: 'asan' | 'ubsan' };
    };
    const exe = join(work, 'reduced-check');
    const cc = await runProcess(
      'clang',
      ['-O0', '-g', '-w', ...sanitizerFlags(j.sanitizer.name), join(f.dir, 'reduced.c'), '-o', exe],
      { cwd: work, timeoutMs: 120_000 },
    );
    expect(cc.status, cc.stderr).toBe(0);
    const ran = await runProcess(exe, [], { cwd: work, timeoutMs: 60_000 });
    expect(ran.stderr).toMatch(/ERROR: AddressSanitizer|runtime error:/);
  });

  it('turns a compiler whose sanitized binaries always report into ' +
    'sanitizer-false-alarm findings on UB-free programs, and reduces one', {
    timeout: 600_000,
  }, async () => {
    // Fault injection: a gcc that links a constructor with an out-of-bounds store into sanitized builds.
    const noisy = join(work, 'bin', 'gcc-noisy');
    const extra = join(work, 'bin', 'noise.c');
    writeFileSync(
      extra,
      'static void __attribute__((constructor)) kiln_noise(void) { volatile int a[2]; volatile int i = 2; ' +
        'a[i] = 1; }\n',
    );
    writeFileSync(noisy, `#!/bin/sh\ncase "$*" in *-fsanitize=*) exec gcc "$@" ${extra};; esac\nexec gcc "$@"\n`);
    chmodSync(noisy, 0o755);
    const out = join(work, 'noisy');
    // Seed 9 draws a UB program, 10 a UB-free one.
    const r = await runKiln([
      'fuzz',
      '--sanitizers',
      '--compilers',
      `${noisy},clang`,
      '--opts',
      '-O0',
      '--size',
      'small',
      '--tests',
      '2',
      '--seed-start',
      '9',
      '-j',
      '2',
      '--out',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const listed = await runKiln(['findings', '--out', out, '--json']);
    const findings = JSON.parse(listed.stdout) as Listed[];
    const alarms = findings.filter((f) => f.outcome === 'sanitizer-false-alarm');
    const cleanSeeds = [9n, 10n].filter((s) => sanitizerDraw(s) === undefined);
    expect(cleanSeeds.length).toBeGreaterThan(0);
    expect(alarms.length).toBe(cleanSeeds.length);
    for (const f of findings) expect(f.compiler, f.id).toBe('gcc-noisy');
    for (const f of alarms) {
      const j = JSON.parse(readFileSync(join(f.dir, 'finding.json'), 'utf8')) as { seed: string; bucket: string };
      expect(sanitizerDraw(BigInt(j.seed))).toBeUndefined();
      expect(j.bucket).toMatch(/^sanitizer-false-alarm:gcc-noisy:asan\+ubsan:out-of-bounds:-O0$/);
    }
    const red = await runKiln(['reduce', alarms[0]!.dir, '-j', '2', '--max-candidates', '5']);
    expect(red.status, red.stderr).toBe(0);
    const again = await runProcess('sh', [join(alarms[0]!.dir, 'reduced', 'repro.sh')], {
      cwd: join(alarms[0]!.dir, 'reduced'),
      timeoutMs: 60_000,
    });
    expect(again.status, again.stderr).toBe(0);
  });

  it('refuses --sanitizers with --ub-share, and a matrix without gcc or clang', async () => {
    const a = await runKiln([
      'fuzz',
      '--sanitizers',
      '--ub-share',
      '0.5',
      '--compilers',
      'gcc',
      '--tests',
      '1',
      '--out',
      join(work, 'bad1'),
    ]);
    expect(a.status).toBe(2);
    expect(a.stderr).toMatch(/^kiln: error\[KILN_BAD_OPTION\]: .*--ub-share/);
    requireTool('tcc');
    const b = await runKiln([
      'fuzz',
      '--sanitizers',
      '--compilers',
      'tcc',
      '--tests',
      '1',
      '--out',
      join(work, 'bad2'),
    ]);
    expect(b.status).toBe(2);
    expect(b.stderr).toMatch(/^kiln: error\[KILN_BAD_OPTION\]: .*gcc or clang/);
  });
});
