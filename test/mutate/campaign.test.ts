// Fault injection for `kiln fuzz --emi`: a fake compiler that miscompiles only a shape that
// occurs in EMI variants (an if whose condition carries __builtin_expect) is caught with --emi,
// the finding records its recipe, `kiln reduce` regenerates and reduces it on the IR, and a
// campaign without --emi, on the same seeds, reports nothing.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../support/cc.js';
import { runKiln } from '../harness/support/cli.js';

/** gcc, except that a program using `__builtin_expect(!!(` gets a wrong checksum (its initial value bumped). */
// biome-ignore format: embedded text
const FAKE = `#!/bin/sh
srcs=; out=; prev=
for a; do
  case $a in *.c) srcs="$srcs $a";; esac
  [ "$prev" = -o ] && out=$a
  prev=$a
done
if [ -n "$srcs" ] && cat $srcs | grep -q '__builtin_expect(!!('; then
  fakes=
  for f in $srcs; do sed 's/\\(kiln_crc = 0x[0-9A-F]*ULL\\)/\\1 + 1/' "$f" > "$f.fake.c" || exit 1; fakes="$fakes $f.fake.c"; done
  exec gcc -O0 -w $fakes -o "$out" -lm
fi
exec gcc "$@"
`;

interface Listed {
  id: string;
  outcome: string;
  compiler: string;
  seed: string;
  dir: string;
  emi: { k: number; base: string; variant: number } | null;
}

describe('kiln fuzz --emi', () => {
  let work: string;
  let fake: string;
  beforeAll(() => {
    requireTool('gcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-emi-fuzz-'));
    fake = join(work, 'fake-expect');
    writeFileSync(fake, FAKE);
    chmodSync(fake, 0o755);
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const campaign = (out: string, extra: string[]) =>
    runKiln([
      'fuzz',
      '--mode',
      'csmith',
      '--size',
      'small',
      '--compilers',
      `gcc,${fake}`,
      '--opts',
      '-O0',
      // Seeds 4-7: under --emi 3, base program 1 and its variants 1-3 (variant 1, seed 5, has the
      // shape); without, four base programs.
      '--tests',
      '4',
      '--seed-start',
      '4',
      '-j',
      '2',
      '--out',
      out,
      ...extra,
    ]);

  it('without --emi: no finding (no base program has the shape)', async () => {
    const out = join(work, 'plain');
    const r = await campaign(out, []);
    expect(r.status, r.stderr).toBe(0);
    const listed = await runKiln(['findings', '--out', out, '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  }, 300_000);

  it('with --emi 3: caught, recorded with its recipe, reduced on the IR keeping the shape', async () => {
    const out = join(work, 'emi');
    const r = await campaign(out, ['--emi', '3']);
    expect(r.status, r.stderr).toBe(0);
    const listed = await runKiln(['findings', '--out', out, '--json']);
    const rows = JSON.parse(listed.stdout) as Listed[];
    expect(rows.length).toBeGreaterThan(0);
    for (const f of rows) {
      expect(f.outcome).toBe('wrong-code');
      expect(f.compiler).toBe('fake-expect');
      expect(f.emi).toMatchObject({ k: 3, base: String(BigInt(f.seed) / 4n), variant: Number(BigInt(f.seed) % 4n) });
      expect(f.emi!.variant).toBeGreaterThan(0);
      expect(readFileSync(join(f.dir, 'prog.c'), 'utf8')).toContain('__builtin_expect(!!(');
    }
    const text = await runKiln(['findings', '--out', out]);
    expect(text.stdout).toMatch(/EMI variant \d+ of seed \d+/);
    const dir = rows[0]!.dir;
    // A budget of candidates, not of time (the outcome must not depend on the machine's speed):
    // the first rounds already shrink it (measured: 10 candidates take it from 990 lines to 172);
    // the whole reduction is bench territory. One job: no candidate is tested only to be dropped.
    const red = await runKiln(['reduce', dir, '--jobs', '1', '--max-candidates', '10', '-o', join(work, 'reduced.c')]);
    expect(red.status, red.stderr).toBe(0);
    // The summary names the limit that stopped it.
    expect(red.stdout + red.stderr).toContain('stopped early: give a larger --max-candidates to go on');
    const reduced = readFileSync(join(work, 'reduced.c'), 'utf8');
    expect(reduced).toContain('__builtin_expect(!!(');
    expect(reduced.split('\n').length).toBeLessThan(readFileSync(join(dir, 'prog.c'), 'utf8').split('\n').length);
  }, 600_000);
});
