// Profile-guided configurations without compiling: the option syntax, the configuration file's
// objects, the matrix's keys and slugs, the perturbations (on hand-built .gcda files of both
// length units and byte orders, and on llvm-profdata's text form), and the repro script's lines.
import { describe, expect, it } from 'vitest';
import { checkConfigurations } from '../../src/cli/fuzz-flags.js';
import type { Compiler } from '../../src/harness/compilers.js';
import { parseFuzzConfig } from '../../src/harness/config.js';
import { buildMatrix, DEFAULT_LIMITS, splitOptionSets } from '../../src/harness/matrix.js';
import { instrumentedConfiguration } from '../../src/harness/execute.js';
import { splitProfileToken } from '../../src/harness/profile.js';
import {
  gcdaArcCounts,
  gcdaMajor,
  perturbGcda,
  perturbProfText,
  profTextCounts,
} from '../../src/harness/profile-perturb.js';
import { refuseStaticProfileProblems } from '../../src/harness/profile-probe.js';
import { reproScript } from '../../src/harness/repro.js';

const gcc: Compiler = {
  name: 'gcc-12',
  command: '/usr/bin/gcc-12',
  realPath: '/usr/bin/gcc-12',
  family: 'gcc',
  version: 'gcc-12 (Debian 12.2.0-14) 12.2.0',
};
const tcc: Compiler = { ...gcc, name: 'tcc', command: '/usr/bin/tcc', realPath: '/usr/bin/tcc', family: 'tcc' };

describe('profile option syntax', () => {
  it('splits the pseudo-option off the compiler options', () => {
    expect(splitProfileToken(['-O2', '+profile'])).toEqual({ options: ['-O2'], profile: 'true' });
    expect(splitProfileToken(['+profile=true', '-O1'])).toEqual({ options: ['-O1'], profile: 'true' });
    expect(splitProfileToken(['-O2', '+profile=perturbed'])).toEqual({ options: ['-O2'], profile: 'perturbed' });
    expect(splitProfileToken(['-O2'])).toEqual({ options: ['-O2'] });
    for (const bad of [['+profile=maybe'], ['+prof'], ['+profile', '+profile=perturbed']])
      expect(() => splitProfileToken(bad)).toThrow(expect.objectContaining({ code: 'KILN_BAD_OPTION' }));
  });

  it('gives each profile kind its own configuration, key and slug', () => {
    const sets = splitOptionSets('-O2;-O2 +profile;-O2 +profile=perturbed;+profile -O2');
    const m = buildMatrix([gcc], sets);
    expect(m.map((c) => c.slug)).toEqual(['gcc-12-O2', 'gcc-12-O2-profile', 'gcc-12-O2-profile-perturbed']);
    expect(m.map((c) => c.optionsText)).toEqual(['-O2', '-O2 +profile', '-O2 +profile=perturbed']);
    expect(m.map((c) => c.profile)).toEqual([undefined, 'true', 'perturbed']);
    expect(new Set(m.map((c) => c.key)).size).toBe(3);
    expect(m.every((c) => c.options.join(' ') === '-O2')).toBe(true);
    // What is stored reads back as the same configuration (--resume, the reducer).
    expect(buildMatrix([gcc], [m[2]!.optionsText])[0]).toEqual(m[2]);
    expect(instrumentedConfiguration(m[2]!).options).toEqual(['-O2', '-fprofile-generate']);
    expect(instrumentedConfiguration(m[2]!).profile).toBeUndefined();
  });

  it('reads option sets with a profile from the configuration file', () => {
    const cfg = parseFuzzConfig(
      { options: ['-O0', { options: '-O2', profile: true }, { options: '-O3 -flto', profile: 'perturbed' }] },
      'kiln.yaml',
    );
    expect(cfg.options).toEqual(['-O0', '-O2 +profile', '-O3 -flto +profile=perturbed']);
    expect(parseFuzzConfig({ options: [{ options: '-O1', profile: false }] }, 'k.yaml').options).toEqual(['-O1']);
    expect(() => parseFuzzConfig({ options: [{ options: '-O2', profile: 'sometimes' }] }, 'k.yaml')).toThrow(
      expect.objectContaining({ code: 'KILN_BAD_CONFIG' }),
    );
  });

  it('refuses profile configurations of tcc with a coded error, before any compile', () => {
    expect(() => refuseStaticProfileProblems(buildMatrix([tcc], ['-O2 +profile']))).toThrow(
      expect.objectContaining({ code: 'KILN_PROFILE_UNSUPPORTED' }),
    );
    expect(() => refuseStaticProfileProblems(buildMatrix([tcc], ['-O2']))).not.toThrow();
    // The flags' check refuses it too, and a profile with --sanitizers (sanitized builds take none).
    expect(() => checkConfigurations(buildMatrix([tcc], ['-O2 +profile']), 'tcc', [tcc], false)).toThrow(
      expect.objectContaining({ code: 'KILN_PROFILE_UNSUPPORTED' }),
    );
    expect(() => checkConfigurations(buildMatrix([gcc], ['-O2 +profile']), 'gcc-12', [gcc], true)).toThrow(
      expect.objectContaining({ code: 'KILN_BAD_OPTION' }),
    );
  });
});

/** A .gcda file of one version and byte order: one function with the given arc counts and a time profile. */
function gcda(major: number, littleEndian: boolean, arcs: readonly bigint[], zeroBlock = false): Buffer {
  const words: number[] = [];
  const bytes = major >= 12;
  const len = (n: number): number => (bytes ? n * 4 : n);
  const version = ((0x41 + Math.floor(major / 10)) << 24) | ((0x30 + (major % 10)) << 16) | (0x32 << 8) | 0x2a;
  words.push(0x67636461, version >>> 0, 0x1234567);
  if (bytes) words.push(0x89abcdef);
  words.push(0xa1000000, len(2), 1, 500);
  words.push(0x01000000, len(3), 7, 0x5dbbf48b, 0xad08228c);
  words.push(0x01a10000, len(2 * arcs.length));
  for (const a of arcs) words.push(Number(a & 0xffffffffn), Number(a >> 32n));
  if (zeroBlock) words.push(0x01a30000, (-16 >>> 0) as number);
  words.push(0x01af0000, len(2), 1, 0, 0);
  const b = Buffer.alloc(words.length * 4);
  for (const [i, w] of words.entries()) {
    if (littleEndian) b.writeUInt32LE(w >>> 0, i * 4);
    else b.writeUInt32BE(w >>> 0, i * 4);
  }
  return b;
}

describe('profile perturbation', () => {
  const arcs = [1n, 500n, 167n, 333n, 1n, 1n << 40n];

  it('reads gcc 11 (lengths in words) and 12+ (bytes) files in either byte order', () => {
    expect(gcdaMajor(0x4232322a)).toBe(12);
    expect(gcdaMajor(0x4231332a)).toBe(11);
    expect(gcdaMajor(0x4234342a)).toBe(14);
    for (const major of [11, 12, 14])
      for (const le of [true, false]) expect(gcdaArcCounts(gcda(major, le, arcs, major >= 12))).toEqual([arcs]);
  });

  it('perturbs .gcda arc counts deterministically, changes them, and keeps everything else', () => {
    for (const major of [11, 12]) {
      const file = gcda(major, true, arcs, major >= 12);
      const outs = ['a', 'b', 'c', 'd', 'e'].map((seed) => perturbGcda(file, seed));
      for (const [i, seed] of ['a', 'b', 'c', 'd', 'e'].entries()) {
        expect(perturbGcda(file, seed).equals(outs[i]!)).toBe(true);
        expect(gcdaArcCounts(outs[i]!)).not.toEqual([arcs]);
        expect(outs[i]!.length).toBe(file.length);
      }
      // Stamp (and checksum) zeroed; magic and version kept; records after the arcs untouched.
      expect(outs[0]!.readUInt32LE(8)).toBe(0);
      expect(outs[0]!.subarray(0, 8).equals(file.subarray(0, 8))).toBe(true);
      expect(outs[0]!.subarray(-20).equals(file.subarray(-20))).toBe(true);
      // Different seeds give different perturbations (not all the same).
      expect(new Set(outs.map((o) => o.toString('hex'))).size).toBeGreaterThan(1);
    }
  });

  it('perturbs a zero profile too', () => {
    expect(gcdaArcCounts(perturbGcda(gcda(12, true, [0n, 0n]), 's'))).not.toEqual([[0n, 0n]]);
  });

  it("perturbs llvm-profdata's text form in its counts only", () => {
    const text = [
      'main',
      '# Func Hash:',
      '19458656375896',
      '# Num Counters:',
      '3',
      '# Counter Values:',
      '1',
      '1000',
      '500',
      '',
      'prog.c:f',
      '# Func Hash:',
      '99167',
      '# Num Counters:',
      '2',
      '# Counter Values:',
      '500',
      '167',
      '',
    ].join('\n');
    expect(profTextCounts(text)).toEqual([
      [1n, 1000n, 500n],
      [500n, 167n],
    ]);
    const seeds = ['1', '2', '3', '4'];
    for (const seed of seeds) {
      const p = perturbProfText(text, seed);
      expect(perturbProfText(text, seed)).toBe(p);
      expect(profTextCounts(p)).not.toEqual(profTextCounts(text));
      const shape = (t: string): string => t.replace(/^\d+$/gm, 'N');
      expect(shape(p)).toBe(shape(text));
      expect(p).toContain('19458656375896');
    }
  });
});

describe('repro.sh of a profile configuration', () => {
  const [trueCfg, perturbed] = buildMatrix([gcc], ['-O2 +profile', '-O2 +profile=perturbed']);
  const base = {
    id: '1-2-x',
    judgement: { outcome: 'wrong-code' as const, bucket: 'b', detail: 'printed x' },
    expected: 'checksum = 1',
    limits: DEFAULT_LIMITS,
  };

  it('builds, runs and reads the true profile itself', () => {
    const s = reproScript({ ...base, config: trueCfg!, profile: { stage: 'use' } });
    expect(s).toContain('-fprofile-generate prog.c -o prog -lm');
    expect(s).toContain('-O2 -fprofile-use prog.c -o prog -lm');
  });

  it('decodes the stored perturbed profile, and needs it', () => {
    const files = [{ name: 'prog.gcda.base64', content: 'AAAA\n' }];
    const s = reproScript({ ...base, config: perturbed!, profile: { stage: 'use', files } });
    expect(s).toContain('base64 -d prog.gcda.base64 >prog.gcda');
    expect(s).toContain('for f in prog.c prog.gcda.base64; do');
    expect(s).not.toContain('-fprofile-generate');
    expect(() => reproScript({ ...base, config: perturbed! })).toThrow(/profile files/);
  });

  it("reproduces a failure of the instrumented build as that build's own", () => {
    const s = reproScript({ ...base, config: perturbed!, profile: { stage: 'instrumented' } });
    expect(s).toContain('-O2 -fprofile-generate prog.c -o prog -lm');
    expect(s).not.toContain('-fprofile-use');
  });
});
