import { describe, expect, it } from 'vitest';
import type { Compiler } from '../../src/harness/compilers.js';
import { durationMs, memoryMb, parseFuzzConfig } from '../../src/harness/config.js';
import { isKilnError } from '../../src/diag/errors.js';
import { buildMatrix, DEFAULT_LIMITS, limitsFor, optionKey, splitOptionSets } from '../../src/harness/matrix.js';

const cc = (name: string, realPath = `/usr/bin/${name}`): Compiler => ({
  name,
  command: `/usr/bin/${name}`,
  realPath,
  family: 'gcc',
  version: name,
});

describe('option sets', () => {
  it('splits lists on semicolons, or on commas that start a new set', () => {
    expect(splitOptionSets('-O0;-O2 -fno-strict-aliasing')).toEqual(['-O0', '-O2 -fno-strict-aliasing']);
    expect(splitOptionSets('-O0,-O1, -O3  -march=native')).toEqual(['-O0', '-O1', '-O3 -march=native']);
    // Commas inside options stay: sanitizer lists, linker and assembler pass-through.
    expect(splitOptionSets('-O1 -fsanitize=address,undefined,-O2 -Wl,--gc-sections')).toEqual([
      '-O1 -fsanitize=address,undefined',
      '-O2 -Wl,--gc-sections',
    ]);
    expect(splitOptionSets('-O2 -Wl,-O1;-O3')).toEqual(['-O2 -Wl,-O1', '-O3']);
  });

  it('normalises order and whitespace unless options override each other', () => {
    expect(optionKey(['-g', '-O2'])).toBe(optionKey(['-O2', '-g']));
    expect(optionKey(['-O2', '-O0'])).not.toBe(optionKey(['-O0', '-O2']));
    expect(optionKey(['-fno-inline', '-finline'])).not.toBe(optionKey(['-finline', '-fno-inline']));
    expect(optionKey(['-march=native', '-march=x86-64'])).not.toBe(optionKey(['-march=x86-64', '-march=native']));
  });

  it('builds the matrix without compiling one configuration twice', () => {
    const gcc = cc('gcc', '/usr/bin/gcc-12');
    const m = buildMatrix([gcc, cc('clang')], ['-O2 -g', '-g   -O2', '-O3', '-O2 -O0', '-O0 -O2']);
    expect(m.map((c) => `${c.compiler.name} ${c.optionsText}`)).toEqual([
      'gcc -O2 -g',
      'gcc -O3',
      'gcc -O2 -O0',
      'gcc -O0 -O2',
      'clang -O2 -g',
      'clang -O3',
      'clang -O2 -O0',
      'clang -O0 -O2',
    ]);
    expect(new Set(m.map((c) => c.slug)).size).toBe(m.length);
    expect(m[0]!.slug).toBe('gcc-O2-g');
  });

  it('tests tcc once per non-optimisation option set: its -O levels compile the same code', () => {
    const tcc: Compiler = { ...cc('tcc'), family: 'tcc' };
    const m = buildMatrix([cc('gcc'), tcc], ['-O0', '-O1', '-O2', '-Os', '-O3', '-O2 -g']);
    expect(m.filter((c) => c.compiler.name === 'gcc')).toHaveLength(6);
    expect(m.filter((c) => c.compiler.name === 'tcc').map((c) => c.optionsText)).toEqual(['-O0', '-O2 -g']);
  });

  it('never puts an address-space limit on sanitizer builds', () => {
    const [plain, asan] = buildMatrix([cc('gcc')], ['-O2', '-O1 -fsanitize=address']);
    expect(limitsFor(DEFAULT_LIMITS.run, plain!).memoryMb).toBe(2048);
    expect(limitsFor(DEFAULT_LIMITS.run, asan!).memoryMb).toBeUndefined();
    expect(limitsFor(DEFAULT_LIMITS.compile, asan!).memoryMb).toBeUndefined();
  });
});

describe('configuration file', () => {
  it('parses durations and sizes', () => {
    expect(durationMs('90s')).toBe(90_000);
    expect(durationMs('10m')).toBe(600_000);
    expect(durationMs('2h')).toBe(7_200_000);
    expect(durationMs(5)).toBe(5000);
    expect(durationMs('soon')).toBeUndefined();
    expect(memoryMb('2GiB')).toBe(2048);
    expect(memoryMb('512M')).toBe(512);
    expect(memoryMb('none')).toBe(false);
    expect(memoryMb('lots')).toBeUndefined();
  });

  it('validates every field and names the first bad one', () => {
    const cfg = parseFuzzConfig(
      {
        compilers: ['gcc'],
        options: ['-O2 -flto'],
        limits: { compile: { timeout: '2m', memory: '4GiB' }, run: { timeout: 3 } },
        policy: { name: 'p' },
        size: 'small',
      },
      'kiln.yaml',
    );
    expect(cfg.limits).toEqual({ compile: { timeout: 120_000, memory: 4096 }, run: { timeout: 3000 } });
    for (const [raw, field] of [
      [{ compilers: [] }, 'compilers'],
      [{ options: '-O2' }, 'options'],
      [{ jobs: 0 }, 'jobs'],
      [{ limits: { run: { memory: 'lots' } } }, 'limits.run.memory'],
      [{ limits: { link: {} } }, 'limits.link'],
      [{ size: 'huge' }, 'size'],
    ] as const) {
      try {
        parseFuzzConfig(raw, 'kiln.yaml');
        expect.unreachable(`accepted ${JSON.stringify(raw)}`);
      } catch (e) {
        expect(isKilnError(e)).toBe(true);
        expect((e as { code: string }).code).toBe('KILN_BAD_CONFIG');
        expect((e as Error).message).toContain(`kiln.yaml: field '${field}'`);
      }
    }
  });
});
