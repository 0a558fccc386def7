// kiln emi: the base and K variants on disk with one JSON line each; the same seed and options
// give the same bytes; bad input gets a one-line coded error.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runKiln } from '../harness/support/cli.js';

const work = mkdtempSync(join(tmpdir(), 'kiln-emi-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('kiln emi', () => {
  it('writes variant 0 (the base) and variants 1…K, one JSON line each, the same bytes twice', async () => {
    const a = join(work, 'a');
    const b = join(work, 'b');
    const ra = await runKiln(['emi', '--seed', '5', '--size', 'small', '--variants', '3', '-o', a, '--json']);
    expect(ra.status, ra.stderr).toBe(0);
    const lines = ra.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const proven = lines.filter((l) => !('internal' in l));
    expect(proven[0]).toMatchObject({ seed: '5', variant: 0, diffLines: 0 });
    for (const l of proven) {
      expect(Object.keys(l)).toEqual(
        expect.arrayContaining(['seed', 'variant', 'file', 'expected', 'strategies', 'diffLines']),
      );
      expect(readFileSync(l.file as string, 'utf8')).toContain(`expected "${l.expected as string}"`);
    }
    expect(proven.length + lines.filter((l) => 'internal' in l).length).toBe(4);
    expect(proven.slice(1).some((l) => (l.diffLines as number) > 0)).toBe(true);
    const rb = await runKiln(['emi', '--seed', '5', '--size', 'small', '--variants', '3', '-o', b]);
    expect(rb.status, rb.stderr).toBe(0);
    const files = readdirSync(a).sort();
    expect(readdirSync(b).sort()).toEqual(files);
    for (const f of files) expect(readFileSync(join(b, f), 'utf8')).toBe(readFileSync(join(a, f), 'utf8'));
  }, 120_000);

  it('refuses bad input with one coded line and exit 2', async () => {
    const bad = await runKiln(['emi', '--seed', '1', '--variants', 'many', '-o', join(work, 'c')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/KILN_BAD_OPTION/);
    expect(bad.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    const noOut = await runKiln(['emi', '--seed', '1']);
    expect(noOut.status).toBe(2);
    expect(noOut.stderr).toMatch(/KILN_BAD_OPTION/);
    const file = await runKiln(['emi', join(work, 'missing.c'), '-o', join(work, 'd')]);
    expect(file.status).toBe(2);
    expect(file.stderr).toMatch(/KILN_FILE.*missing\.c: no such file/);
    const fuzz = await runKiln(['fuzz', '--emi', 'x', '--tests', '1', '--out', join(work, 'e')]);
    expect(fuzz.status).toBe(2);
    expect(fuzz.stderr).toMatch(/KILN_BAD_OPTION.*--emi/);
  }, 240_000);
});
