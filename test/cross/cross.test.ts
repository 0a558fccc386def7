// Cross targets end to end, with the cross target of the test profile (m68k-linux-gnu-gcc-12 under
// qemu-m68k: ILP32, big-endian, 2-byte alignment): one program per model for a seed, the cross
// compiler's binaries printing the model's expected output at -O0 and -O2, discovery of the
// compiler's target and emulator, repro.sh through the emulator, and `kiln fuzz` needing nothing
// but the compiler's name (and refusing a broken emulator with one line).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSettings } from '../../src/cli/fuzz.js';
import { emitFiles } from '../../src/emit/files.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { missingEmulator, resolveCompiler, type Compiler } from '../../src/harness/compilers.js';
import { runArgv, testConfiguration } from '../../src/harness/execute.js';
import {
  buildMatrix,
  configEmulator,
  configMissingEmulator,
  configTarget,
  DEFAULT_LIMITS,
} from '../../src/harness/matrix.js';
import { reproScript } from '../../src/harness/repro.js';
import type { FindingReduction } from '../../src/reduce/finding.js';
import { markdownReport, targetSanitizerCheck } from '../../src/report/bundle.js';
import { TempRoot } from '../../src/harness/tempdir.js';
import { generateProgram } from '../../src/repair/generate.js';
import { requireTool, plainC } from '../support/cc.js';
import { runKiln } from '../harness/support/cli.js';

const CROSS = 'm68k-linux-gnu-gcc-12';

/**
 * A program of `seed` for `target`, with plain char and long likely (classic spellings favoured);
 * of the default size, or small where any program will do.
 */
function program(seed: number, target: string, size?: 'small'): { text: string; expected: string } {
  // Plain C: an x86_64 program is also compiled for m68k (whose gcc 12 has no `_BitInt`).
  const policy = { ...plainC(parsePolicy({ choices: { classicTypeNames: 0.8 } }, size)), target };
  const r = generateProgram(seed, policy, 'csmith');
  if (!r.ok) throw new Error(`seed ${seed} discarded: ${r.reason}`);
  const files = emitFiles(r.program, { expected: r.expected });
  return { text: files[0]!.content, expected: r.expected };
}

describe('cross targets (m68k under qemu-m68k)', () => {
  let m68k: Compiler;
  let temp: TempRoot;
  let work: string;

  beforeAll(async () => {
    requireTool(CROSS);
    requireTool('qemu-m68k');
    m68k = await resolveCompiler(CROSS);
    temp = TempRoot.create();
    work = mkdtempSync(join(tmpdir(), 'kiln-cross-'));
  });
  afterAll(() => {
    temp?.dispose();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('a cross gcc knows its target and the emulator that runs its binaries', () => {
    expect(m68k.target).toBe('m68k');
    expect(m68k.emulator?.[0]).toMatch(/\/qemu-m68k$/);
    expect(m68k.emulator?.slice(1)).toEqual(['-L', '/usr/m68k-linux-gnu']);
    expect(missingEmulator(m68k)).toBeUndefined();
    expect(missingEmulator({ ...m68k, emulator: undefined })).toBe('qemu-m68k');
    expect(configTarget(buildMatrix([m68k], ['-O2'])[0]!).name).toBe('m68k');
    const gcc: Compiler = {
      name: 'gcc',
      command: '/usr/bin/gcc',
      realPath: '/usr/bin/gcc',
      family: 'gcc',
      version: 'gcc',
    };
    expect(buildMatrix([gcc], ['-O2', '-O2 -m32']).map((c) => configTarget(c).name)).toEqual(['x86_64', 'i686']);
    // clang --target=<triplet>: the model from the triplet, run under that target's qemu.
    const clang: Compiler = {
      name: 'clang',
      command: '/usr/bin/clang',
      realPath: '/usr/bin/clang',
      family: 'clang',
      version: 'clang',
    };
    const [native, cross, other] = buildMatrix(
      [clang],
      ['-O2', '--target=m68k-linux-gnu -O2', '-target powerpc-linux-gnu'],
    );
    expect([native!, cross!, other!].map((c) => configTarget(c).name)).toEqual(['x86_64', 'm68k', 'powerpc']);
    expect(configEmulator(native!)).toBeUndefined();
    expect(configEmulator(cross!)).toEqual(m68k.emulator);
    expect(runArgv(cross!)).toEqual([...m68k.emulator!, './prog']);
    expect(configMissingEmulator(buildMatrix([{ ...m68k, emulator: undefined }], ['-O2'])[0]!)).toBe('qemu-m68k');
    expect(configMissingEmulator(cross!)).toBeUndefined();
  });

  it('one seed gives one program per model, with that model’s expected output', () => {
    const x86 = program(11, 'x86_64');
    const m = program(11, 'm68k');
    const arm = program(11, 'arm');
    expect(new Set([x86.text, m.text, arm.text]).size).toBe(3);
    // The models' C types stay in use: plain char and long are declared in these programs.
    expect(m.text).toMatch(/\bchar\b/);
    expect(m.text).toMatch(/\b(unsigned )?long\b(?! long)/);
  });

  it('kiln gen --target names the model in the header, and refuses one Kiln does not model', async () => {
    const r = await runKiln(['gen', '--seed', '11', '--target', 'm68k']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Generated by Kiln (mode csmith, policy csmith, target m68k), seed 11.');
    const bad = await runKiln(['gen', '--seed', '11', '--target', 'sh4']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.split('\n')[0]).toMatch(/^kiln: error\[KILN_BAD_OPTION\]: .*sh4.*one of x86_64, i686, m68k/);
  }, 60_000);

  it('m68k binaries of a few programs print their expected output at -O0 and -O2', async () => {
    const configs = buildMatrix([m68k], ['-O0', '-O2']);
    for (const seed of [1, 2, 3]) {
      const p = program(seed, 'm68k');
      for (const c of configs) {
        const r = await testConfiguration(p.text, p.expected, c, DEFAULT_LIMITS, temp);
        expect(r.judgement, `seed ${seed} ${c.optionsText}: ${r.run?.stderr ?? r.compile.stderr}`).toEqual({
          outcome: 'ok',
        });
        expect(r.run!.command.slice(0, 3)).toEqual([...m68k.emulator!]);
      }
    }
    // The x86-64 program of a seed is not the m68k one: its expected output does not hold there.
    const wrong = program(1, 'x86_64');
    const bad = await testConfiguration(wrong.text, program(1, 'm68k').expected, configs[0]!, DEFAULT_LIMITS, temp);
    expect(bad.judgement.outcome).toBe('wrong-code');
  }, 240_000);

  it('repro.sh runs the binary under the emulator', () => {
    const c = buildMatrix([m68k], ['-O1'])[0]!;
    const p = program(4, 'm68k', 'small');
    writeFileSync(join(work, 'prog.c'), p.text);
    const script = (expected: string): string => {
      const s = reproScript({
        id: 't',
        config: c,
        judgement: { outcome: 'wrong-code', bucket: 'b', detail: 'printed x' },
        expected,
        limits: DEFAULT_LIMITS,
      });
      writeFileSync(join(work, 'repro.sh'), s);
      chmodSync(join(work, 'repro.sh'), 0o755);
      return s;
    };
    expect(script(p.expected)).toContain('qemu-m68k');
    // Right output: the "wrong code" does not reproduce (exit 1); a different expectation: it does (exit 0).
    expect(spawnSync('sh', ['repro.sh'], { cwd: work }).status).toBe(1);
    script('checksum = 0000000000000000');
    expect(spawnSync('sh', ['repro.sh'], { cwd: work }).status).toBe(0);
  }, 120_000);

  it("a reduced finding's report names the target and runs the binary under its qemu", () => {
    const report = (c: ReturnType<typeof buildMatrix>[number]): string => {
      const r = {
        finding: { outcome: 'wrong-code', mode: 'csmith', seed: '63' },
        config: c,
        files: [{ name: 'prog.c', content: 'int main(void) { return 0; }\n' }],
        source: 'int main(void) { return 0; }\n',
        failing: { judgement: { outcome: 'wrong-code', bucket: 'b' }, output: 'checksum = 1' },
        expected: 'checksum = 2',
        original: { lines: 100 },
        lines: 1,
        complete: true,
      } as unknown as FindingReduction;
      return markdownReport(r, { status: 'skipped' } as never);
    };
    const cross = report(buildMatrix([m68k], ['-O2'])[0]!);
    expect(cross).toContain('- Target: m68k Linux (m68k-linux-gnu; ILP32, big-endian, signed plain char)');
    expect(cross).toMatch(
      /^m68k-linux-gnu-gcc-12 -O2 -ffp-contract=off prog\.c -o prog .*&& qemu-m68k -L \/usr\/m68k-linux-gnu \.\/prog$/m,
    );
    const host = report(
      buildMatrix([{ ...m68k, name: 'gcc', command: 'gcc', target: undefined, emulator: undefined }], ['-O2'])[0]!,
    );
    expect(host).toContain('- Target: x86-64 Linux (LP64)');
    expect(host).toMatch(/^gcc -O2 prog\.c -o prog .*&& \.\/prog$/m);
  });

  it('a cross program is checked with sanitizers on its target: ' +
    'UBSan traps under qemu-m68k, and the report says so', async () => {
    const c = buildMatrix([m68k], ['-O2'])[0]!;
    const p = program(5, 'm68k', 'small');
    const clean = await targetSanitizerCheck([{ name: 'prog.c', content: p.text }], c);
    expect(clean).toMatchObject({ status: 'clean', compiler: CROSS });
    // Debian has no UBSan runtime for m68k: the checks trap instead.
    expect(clean.status === 'clean' && clean.how).toMatch(
      /-fsanitize=undefined -fsanitize-undefined-trap-on-error.*run under qemu-m68k/,
    );
    // A signed overflow that only a check catches (it prints the same either way).
    const overflow =
      '#include <limits.h>\n#include <stdio.h>\n' +
      'int main(int argc, char **argv) { int x = INT_MAX; x += argc; (void)argv; printf("%d\\n", x > 0); ' +
      'return 0; }\n';
    const bad = await targetSanitizerCheck([{ name: 'prog.c', content: overflow }], c);
    expect(bad).toMatchObject({ status: 'error', compiler: CROSS });
    expect(bad.status === 'error' && bad.detail).toMatch(/a check trapped \(SIG(ILL|TRAP)\)/);
    const r = {
      finding: { outcome: 'wrong-code', mode: 'csmith', seed: '5' },
      config: c,
      files: [{ name: 'prog.c', content: p.text }],
      source: p.text,
      failing: { judgement: { outcome: 'wrong-code', bucket: 'b' }, output: 'checksum = 1' },
      expected: p.expected,
      original: { lines: 100 },
      lines: 1,
      complete: true,
    } as unknown as FindingReduction;
    expect(markdownReport(r, clean).split('\n')).toContain(
      '- It also runs cleanly under `m68k-linux-gnu-gcc-12 -fsanitize=undefined -fsanitize-undefined-trap-on-error` ' +
        '(no UBSan runtime for this target: each check traps), run under qemu-m68k.',
    );
    expect(markdownReport(r, bad)).toMatch(/^- Warning: under `m68k-linux-gnu-gcc-12 .*, a check trapped/m);
  }, 240_000);

  it('a campaign takes its target from the compilers, and takes one per target when they differ', async () => {
    const s = await resolveSettings({ compilers: CROSS, opts: '-O0' });
    expect(s.policy.target).toBe('m68k');
    const mixed = await resolveSettings({ compilers: `gcc,${CROSS}`, opts: '-O0' });
    const names = new Set(mixed.configurations.map((c) => configTarget(c).name));
    expect([...names].sort()).toEqual(['m68k', 'x86_64']);
    // EMI variants are derived from one program: one target only.
    const emi = await resolveSettings({ compilers: `gcc,${CROSS}`, emi: '2' }).then(
      () => undefined,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(emi?.code).toBe('KILN_BAD_OPTION');
    expect(emi?.message).toMatch(/one target model \(these configurations have x86_64, m68k\)/);
  });

  it('kiln fuzz --compilers m68k-linux-gnu-gcc-12 needs nothing more', async () => {
    const out = join(work, 'out');
    const r = await runKiln([
      'fuzz',
      '--compilers',
      CROSS,
      '--opts',
      '-O0;-O2',
      '--tests',
      '2',
      '--size',
      'small',
      '-j',
      '2',
      '--out',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/this session 2 programs, 4 tests .*campaign total 2 programs, 0 findings, 0 internal/);
  }, 300_000);

  it('a target whose emulator fails on a trivial program is refused with one line', async () => {
    const bin = join(work, 'bin');
    spawnSync('mkdir', ['-p', bin]);
    // An emulator that cannot run anything, as qemu-sh4 is with dynamically linked binaries.
    writeFileSync(
      join(bin, 'qemu-m68k'),
      '#!/bin/sh\necho "qemu: uncaught target signal 11 (Segmentation fault)" >&2\nexit 139\n',
    );
    chmodSync(join(bin, 'qemu-m68k'), 0o755);
    const r = await runKiln(
      ['fuzz', '--compilers', CROSS, '--opts', '-O0', '--tests', '1', '--out', join(work, 'out2')],
      { env: { PATH: `${bin}:${process.env.PATH}` } },
    );
    expect(r.status).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    // Kiln adds -ffp-contract=off on a foreign target (src/harness/matrix.ts: its ISA may have FMA).
    expect(lines[0]).toMatch(
      new RegExp(
        "^kiln: error\\[KILN_BROKEN_COMPILER\\]: configuration 'm68k-linux-gnu-gcc-12 -O0 -ffp-contract=off' " +
          'does not work: its binary',
      ),
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);
});
