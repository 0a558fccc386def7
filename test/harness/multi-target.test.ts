// One campaign over several target models: each seed is generated once per model, every
// configuration tests its own target's program, and a finding records its target and the policy
// that regenerates its program (x86-64 gcc beside m68k's cross gcc under qemu).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../support/cc.js';
import { runKiln } from './support/cli.js';

let work: string;

beforeAll(() => {
  requireTool('gcc');
  requireTool('m68k-linux-gnu-gcc-12');
  requireTool('qemu-m68k');
  work = mkdtempSync(join(tmpdir(), 'kiln-multi-target-'));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a campaign over two targets', () => {
  it('tests each configuration with its own target program, and its findings say the target', async () => {
    mkdirSync(join(work, 'bin'));
    // An m68k gcc that miscompiles seed 3 at -O2 (its checksum starts one off). At -O0 it is right:
    // two configurations of one target agreeing against the interpreter would be `internal`.
    const fake = join(work, 'bin', 'm68k-fake-gcc');
    writeFileSync(
      fake,
      `#!/bin/sh
src=; for a; do case $a in *.c) src=$a;; esac; done
if [ -n "$src" ] && grep -q ', seed 3\\.' "$src" && case " $* " in *" -O2 "*) true;; *) false;; esac; then
  sed 's/\\(kiln_crc = 0x[0-9A-F]*ULL\\)/\\1 + 1/' "$src" > "$src.fake.c"
  args=; for a; do [ "$a" = "$src" ] && a="$src.fake.c"; args="$args $a"; done
  exec m68k-linux-gnu-gcc-12 $args
fi
exec m68k-linux-gnu-gcc-12 "$@"
`,
    );
    chmodSync(fake, 0o755);
    const out = join(work, 'out');
    const policy = join(work, 'plain.json');
    writeFileSync(policy, JSON.stringify({ features: { vectors: false, int128: false, bitInt: false } }));
    const r = await runKiln([
      'fuzz',
      '--compilers',
      `gcc,${fake}`,
      '--opts',
      '-O0;-O2',
      '--tests',
      '4',
      '--seed-start',
      '1',
      '--mode',
      'csmith',
      '--size',
      'small',
      '--policy',
      policy,
      '--jobs',
      '2',
      '--out',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const db = new Database(join(out, 'kiln.db'), { readonly: true });
    const rows = db.prepare('SELECT compiler, outcome, COUNT(*) AS n FROM tests GROUP BY 1, 2 ORDER BY 1, 2').all();
    const seeds = db.prepare('SELECT COUNT(*) AS n FROM seeds').get() as { n: number };
    db.close();
    expect(seeds.n).toBe(4);
    // gcc at two levels on 4 programs, the fake at two levels: only seed 3 at -O2 miscompiled.
    expect(rows).toEqual([
      { compiler: 'gcc', outcome: 'ok', n: 8 },
      { compiler: 'm68k-fake-gcc', outcome: 'ok', n: 7 },
      { compiler: 'm68k-fake-gcc', outcome: 'wrong-code', n: 1 },
    ]);
    const ids = readdirSync(join(out, 'findings')).sort();
    expect(ids).toHaveLength(1);
    for (const id of ids) {
      const dir = join(out, 'findings', id);
      const f = JSON.parse(readFileSync(join(dir, 'finding.json'), 'utf8')) as {
        target: string;
        policy: { target: string };
        expected: string;
      };
      expect(f.target).toBe('m68k');
      expect(f.policy.target).toBe('m68k');
      // The program is m68k's: its header states the expected line the fake's run is compared with.
      expect(readFileSync(join(dir, 'prog.c'), 'utf8')).toContain(f.expected);
      expect(spawnSync('sh', [join(dir, 'repro.sh')], { cwd: dir }).status).toBe(0);
    }
    // The IR reducer regenerates the program from the finding's seed and (m68k) policy.
    const red = await runKiln(['reduce', join(out, 'findings', ids[0]!), '--max-candidates', '5', '-j', '1']);
    expect(red.status, red.stderr).toBe(0);
  });
});
