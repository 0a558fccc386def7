// `kiln fuzz --ub-share F`: a share of the programs is relaxed as CsmithEdge does. One with
// undefined behaviour is compiled only, and only a compiler crash or hang counts for it, so a
// compiler that "miscompiles" it is not reported; a compiler that crashes on it is, with the
// relaxation recorded in finding.json, and the IR reducer (which keeps programs UB-free) points to
// the text reducer instead.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../support/cc.js';
import { runKiln } from '../harness/support/cli.js';
import { writeFake } from '../harness/support/fakes.js';

const work = mkdtempSync(join(tmpdir(), 'kiln-ub-share-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Listed {
  id: string;
  outcome: string;
  compiler: string;
  dir: string;
}

describe('kiln fuzz --ub-share', () => {
  let crash: string;
  let wrong: string;
  let policy: string;
  beforeAll(() => {
    requireTool('gcc');
    const bin = join(work, 'bin');
    // Crashes on exactly the programs Kiln marks as having undefined behaviour.
    crash = join(bin, 'fake-ub-ice');
    wrong = writeFake(
      bin,
      'fake-wrong',
      'wrong-code',
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    writeFileSync(
      crash,
      `#!/bin/sh\nsrc=\nfor a; do case $a in *.c) src=$a;; esac; done\nif [ -n "$src" ] && grep -q 'for ` +
        `compiler crash and hang testing only' "$src"; then echo "$src:1:1: internal compiler error: in ` +
        `relaxed_fold, at fold.cc:7" >&2; exit 1; fi\nexec gcc "$@"\n`,
    );
    chmodSync(crash, 0o755);
    // Every program gets a null dereference wherever one can go: all of them have UB.
    policy = join(work, 'relax.yaml');
    writeFileSync(
      policy,
      'relax:\n  enable: 1\n  nullDeref: [1, 1]\n  dangling: false\n  uninitialised: false\n  goto: false\n' +
        '  arrayBounds: false\n  paramAddress: false\n  conflicts: false\n',
    );
  });

  async function campaign(out: string, share: string): Promise<Listed[]> {
    const r = await runKiln([
      'fuzz',
      '--compilers',
      `${crash},${wrong}`,
      '--opts',
      '-O0',
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
      '-j',
      '2',
      '--ub-share',
      share,
      '--out',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const listed = await runKiln(['findings', '--out', out, '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    return JSON.parse(listed.stdout) as Listed[];
  }

  it('with share 1 reports the crash on programs with UB and never their wrong output; with share 0 the reverse', {
    timeout: 600_000,
  }, async () => {
    const ub = await campaign(join(work, 'ub'), '1');
    expect(ub.filter((f) => f.compiler === 'fake-wrong')).toEqual([]);
    const crashes = ub.filter((f) => f.compiler === 'fake-ub-ice');
    expect(crashes.length).toBeGreaterThan(0);
    for (const f of crashes) {
      expect(f.outcome).toBe('compiler-crash');
      const j = JSON.parse(readFileSync(join(f.dir, 'finding.json'), 'utf8')) as {
        relaxed?: { rates: Record<string, number>; ub?: string };
      };
      expect(j.relaxed?.rates).toEqual({ nullDeref: 1 });
      expect(j.relaxed?.ub).toBe('null-dereference');
    }
    const reduce = await runKiln(['reduce', crashes[0]!.dir]);
    expect(reduce.status).toBe(2);
    expect(reduce.stderr).toMatch(/^kiln: error\[KILN_STATE\]: .*relaxed/);
    expect(reduce.stderr).toMatch(/--test .*repro\.sh/);

    const plain = await campaign(join(work, 'plain'), '0');
    expect(plain.filter((f) => f.compiler === 'fake-ub-ice')).toEqual([]);
    expect(plain.filter((f) => f.compiler === 'fake-wrong' && f.outcome === 'wrong-code').length).toBe(4);
    expect(readdirSync(join(work, 'plain', 'findings')).length).toBe(4);
  });

  it('refuses a share outside 0..1', async () => {
    const r = await runKiln([
      'fuzz',
      '--compilers',
      'gcc',
      '--ub-share',
      '1.5',
      '--tests',
      '1',
      '--out',
      join(work, 'bad'),
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^kiln: error\[KILN_BAD_OPTION\]: .*--ub-share/);
  });
});
