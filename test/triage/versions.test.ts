// The version line's labels and order (src/triage/versions.ts): which versions of a family are
// tried, oldest first with GCC trunk last, and how live, regression, fixed and untested follow
// from their results.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveCompiler, versionKey, type Compiler } from '../../src/harness/compilers.js';
import { TempRoot } from '../../src/harness/tempdir.js';
import { TRIAGE_FILE, triageFinding } from '../../src/triage/triage.js';
import { writeFinding } from './support.js';
import { nextToReduce } from '../../src/campaign/background-reduce.js';
import {
  familyLine,
  labelLine,
  versionSection,
  withVersionSection,
  type VersionLabel,
  type VersionTry,
} from '../../src/triage/versions.js';

const cc = (name: string, version: string, family: Compiler['family'] = 'gcc', target?: string): Compiler => ({
  name,
  command: `/x/${name}`,
  realPath: `/x/${name}`,
  family,
  version,
  ...(target ? { target } : {}),
});

const GCC11 = cc('gcc-11', 'gcc-11 (Debian 11.3.0-12) 11.3.0');
const GCC12 = cc('gcc', 'gcc (Debian 12.2.0-14+deb12u1) 12.2.0');
const GCC16 = cc('gcc-16', 'gcc-16 (Debian 16.2.0-4) 16.2.0');
const TRUNK = cc('gcc-snapshot', 'gcc (Debian 20261020-1) 17.0.0 20261020 (experimental) [master r17-4711]');
const CLANG14 = cc('clang', 'Debian clang version 14.0.6', 'clang');
const CLANG22 = cc('clang-22', 'Debian clang version 22.1.8 (3)', 'clang');
const ALPHA12 = cc('alpha-linux-gnu-gcc-12', 'alpha-linux-gnu-gcc-12 (Debian 12.2.0-14) 12.2.0', 'gcc', 'alpha');
const ALPHA15 = cc('alpha-linux-gnu-gcc-15', 'alpha-linux-gnu-gcc-15 (Debian 15.3.0-1) 15.3.0', 'gcc', 'alpha');

const tries = (results: readonly (VersionTry['result'] | 'own')[]): VersionTry[] =>
  results.map((r, i) => ({
    compiler: `v${i + 1}`,
    version: `v${i + 1}`,
    result: r === 'own' ? 'fails' : r,
    own: r === 'own',
  }));

describe('the version line', () => {
  it('orders a family oldest first, GCC trunk after every release, and keeps to one target', () => {
    expect(versionKey(TRUNK)).toEqual([17, 0, 0, 1]);
    expect(versionKey(GCC12)).toEqual([12, 2, 0, 0]);
    expect(versionKey(CLANG22)).toEqual([22, 1, 8, 0]);
    const all = [TRUNK, CLANG22, GCC16, ALPHA15, GCC11, CLANG14, GCC12, ALPHA12];
    expect(familyLine(GCC12, all).map((c) => c.name)).toEqual(['gcc-11', 'gcc', 'gcc-16', 'gcc-snapshot']);
    expect(familyLine(CLANG22, all).map((c) => c.name)).toEqual(['clang', 'clang-22']);
    expect(familyLine(ALPHA12, all).map((c) => c.name)).toEqual(['alpha-linux-gnu-gcc-12', 'alpha-linux-gnu-gcc-15']);
    // Two names of one major version: the finding's own compiler stays.
    const gcc12b = cc('gcc-12', 'gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0');
    expect(familyLine(gcc12b, [GCC12, gcc12b, GCC16]).map((c) => c.name)).toEqual(['gcc-12', 'gcc-16']);
  });

  it('labels live, regression, fixed and untested from the results, oldest first', () => {
    expect(labelLine(tries(['fails', 'own', 'fails'])).label).toBe('live');
    expect(labelLine(tries(['passes', 'own', 'fails']))).toMatchObject({ label: 'regression', lastPassing: 'v1' });
    expect(labelLine(tries(['own', 'fails', 'passes', 'passes']))).toMatchObject({ label: 'fixed', firstFixed: 'v3' });
    expect(labelLine(tries(['passes', 'own', 'passes']))).toMatchObject({
      label: 'fixed',
      firstFixed: 'v3',
      lastPassing: 'v1',
    });
    // A version in the middle that passes is named: the line is not one unbroken run.
    expect(labelLine(tries(['passes', 'fails', 'passes', 'own'])).summary).toBe(
      'regression: passes on v1, fails from v2 to v4 (the newest installed) except v3, which passes',
    );
    expect(labelLine(tries(['fails', 'passes', 'own'])).summary).toBe(
      'live: fails on v3, the newest installed version, and on the older ones except v2, which passes',
    );
    // A version that fails another way (an unknown option, say) does not count either way.
    expect(labelLine(tries(['own', 'other'])).label).toBe('untested');
    expect(labelLine(tries(['own', 'passes', 'other']))).toMatchObject({ label: 'fixed', firstFixed: 'v2' });
    expect(labelLine(tries(['other', 'own'])).label).toBe('live');
    expect(labelLine(tries(['own'])).label).toBe('untested');
    // The finding does not show on its own compiler: nothing to place.
    expect(
      labelLine([
        { compiler: 'gcc', version: 'gcc', result: 'passes', own: true },
        { compiler: 'gcc-16', version: 'x', result: 'passes', own: false },
      ]).label,
    ).toBe('untested');
  });

  it('writes every version tried into report.md, once, before the notes', () => {
    const line = {
      ...labelLine(tries(['own', 'passes'])),
      tried: tries(['own', 'passes']),
      program: 'reduced' as const,
    };
    const report = '# gcc -O2: wrong code\n\n## To reproduce\n\nx\n\n## Notes\n\n- y\n';
    const once = withVersionSection(report, line);
    expect(once).toContain('## Versions tried');
    expect(once.indexOf('## Versions tried')).toBeLessThan(once.indexOf('## Notes'));
    expect(once).toContain('| v1 (found with) | `v1` | fails |');
    expect(once).toContain('| v2 | `v2` | passes |');
    expect(withVersionSection(once, line)).toBe(once);
    expect(versionSection(line)).toMatch(/\*\*fixed\*\*/);
  });
});

describe('kiln triage with three versions of one compiler', () => {
  it('runs the finding on each, labels it fixed, names the first passing version, says so in report.md', async () => {
    const work = mkdtempSync(join(tmpdir(), 'kiln-versions-'));
    const temp = TempRoot.create();
    try {
      const bin = join(work, 'bin');
      mkdirSync(bin);
      // Three "versions" of one gcc: 11 and 12 miscompile (-DKILN_BUG), 16 does not.
      const fake = (name: string, version: string, bug: boolean): string => {
        const p = join(bin, name);
        writeFileSync(
          p,
          `#!/bin/sh\ncase "$1" in --version) echo "${name} (Fake ${version}) ${version}"; exit 0;; ` +
            `esac\nexec gcc ${bug ? '-DKILN_BUG ' : ''}"$@"\n`,
        );
        chmodSync(p, 0o755);
        return p;
      };
      const paths = [fake('gcc-11', '11.3.0', true), fake('gcc-12', '12.2.0', true), fake('gcc-16', '16.2.0', false)];
      const installed = await Promise.all(paths.map((p) => resolveCompiler(p)));
      const dir = writeFinding(join(work, 'f'), {
        id: 'v1',
        compiler: 'gcc-12',
        compilerPath: paths[1]!,
        options: '-O2',
      });
      writeFileSync(join(dir, 'report.md'), '# gcc-12 -O2: wrong code\n\n## Notes\n\n- n\n');
      const lines: string[] = [];
      const r = await triageFinding(dir, { temp, installed, onProgress: (l) => lines.push(l) });
      expect(r.versions).toMatchObject({ label: 'fixed', firstFixed: 'gcc-16', program: 'original' });
      expect(r.versions!.tried.map((t) => [t.compiler, t.result, t.own])).toEqual([
        ['gcc-11', 'fails', false],
        ['gcc-12', 'fails', true],
        ['gcc-16', 'passes', false],
      ]);
      expect(lines).toContain('v1: gcc-16 → passes');
      const written = JSON.parse(readFileSync(join(dir, TRIAGE_FILE), 'utf8')) as { versions: { label: string } };
      expect(written.versions.label).toBe('fixed');
      expect(readFileSync(join(dir, 'report.md'), 'utf8')).toMatch(
        /## Versions tried[\s\S]*\| gcc-16 \| `gcc-16 \(Fake 16.2.0\) 16.2.0` \| passes \|[\s\S]*## Notes/,
      );

      // The newest passes no more: live.
      writeFileSync(paths[2]!, readFileSync(paths[2]!, 'utf8').replace('exec gcc ', 'exec gcc -DKILN_BUG '));
      expect((await triageFinding(dir, { temp, installed, write: false })).versions?.label).toBe('live');
    } finally {
      temp.dispose();
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('kiln fuzz --reduce, with findings waiting', () => {
  it('drops a flag an older version does not have, and says so', async () => {
    const work = mkdtempSync(join(tmpdir(), 'kiln-versions-flag-'));
    const temp = TempRoot.create();
    try {
      const bin = join(work, 'bin');
      mkdirSync(bin);
      // gcc-13 lacks -fnew-pass (and refuses it as gcc does); gcc-16 has it. Both miscompile.
      const fake = (name: string, version: string, lacks: boolean): string => {
        const p = join(bin, name);
        const said = `${name}: error: unrecognized command-line option '-fnew-pass'`;
        const refuse = lacks ? `for a; do [ "$a" = -fnew-pass ] && { echo "${said}" >&2; exit 1; }; done\n` : '';
        writeFileSync(
          p,
          `#!/bin/sh\ncase "$1" in --version) echo "${name} (Fake ${version}) ${version}"; exit 0;; esac\n` +
            `${refuse}args=; for a; do [ "$a" = -fnew-pass ] || args="$args $a"; done\nexec gcc -DKILN_BUG $args\n`,
        );
        chmodSync(p, 0o755);
        return p;
      };
      const paths = [fake('gcc-13', '13.5.0', true), fake('gcc-16', '16.2.0', false)];
      const installed = await Promise.all(paths.map((p) => resolveCompiler(p)));
      const dir = writeFinding(join(work, 'f'), {
        id: 'v2',
        compiler: 'gcc-16',
        compilerPath: paths[1]!,
        options: '-O2 -fnew-pass',
      });
      const r = await triageFinding(dir, { temp, installed, write: false });
      expect(r.versions!.tried.map((t) => [t.compiler, t.result, t.dropped])).toEqual([
        ['gcc-13', 'fails', ['-fnew-pass']],
        ['gcc-16', 'fails', undefined],
      ]);
      expect(versionSection(r.versions!)).toMatch(
        /\| gcc-13 \| .* \| fails \(without `-fnew-pass`, which it lacks\) \|/,
      );
    } finally {
      temp.dispose();
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('reduces the live ones first, then those it cannot place, the fixed ones last, each in arrival order', () => {
    const labels = new Map<string, VersionLabel>([
      ['a', 'fixed'],
      ['b', 'untested'],
      ['c', 'live'],
      ['d', 'regression'],
    ]);
    const order: string[] = [];
    const queue = ['a', 'b', 'c', 'd', 'e'];
    while (queue.length) order.push(queue.splice(nextToReduce(queue, labels), 1)[0]!);
    expect(order).toEqual(['c', 'd', 'b', 'e', 'a']);
    expect(nextToReduce([], labels)).toBe(-1);
  });
});
