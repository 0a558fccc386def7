// Safe-math wrapper forms (CsmithEdge: functions, macros or a mix, a third each): the draw's
// shares, and a mixed program printing both forms, compiling and printing its expected output.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emitC } from '../../src/emit/c.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { drawSafeMathForm } from '../../src/gen/shuffle.js';
import { Rng } from '../../src/random/rng.js';
import { generateProgram } from '../../src/repair/generate.js';
import { policyForCompilers } from '../support/cc.js';

const dir = mkdtempSync(join(tmpdir(), 'kiln-safe-form-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('safe-math wrapper forms', () => {
  it('draws functions, macros and a mix about a third each by default, with one draw', () => {
    const policy = parsePolicy({});
    const counts = { function: 0, macro: 0, mix: 0 };
    for (let s = 0; s < 3000; s++) {
      const rng = Rng.seeded(`form-${s}`);
      const twin = Rng.seeded(`form-${s}`);
      counts[drawSafeMathForm(rng, policy)]++;
      twin.float();
      expect(rng.u32()).toBe(twin.u32());
    }
    for (const n of Object.values(counts)) {
      expect(n / 3000).toBeGreaterThan(0.29);
      expect(n / 3000).toBeLessThan(0.38);
    }
    // Without the mix, exactly the old choice (and no draw at all when it is certain).
    const none = parsePolicy({ choices: { mixedSafeMath: 0, macroSafeMath: 1 } });
    const r = Rng.seeded('x');
    const t = Rng.seeded('x');
    expect(drawSafeMathForm(r, none)).toBe('macro');
    expect(r.u32()).toBe(t.u32());
  });

  it('prints each wrapper of a mixed program in its own form, and the program prints its expected output', async () => {
    const policy = await policyForCompilers(parsePolicy({ choices: { mixedSafeMath: 1 } }, 'small'), 'gcc');
    let both = 0;
    for (let seed = 1n; seed <= 40n && both < 3; seed++) {
      const g = generateProgram(seed, policy);
      if (!g.ok) continue;
      const text = emitC(g.program, { expected: g.expected });
      const macros = (text.match(/^#define kiln_/gm) ?? []).length;
      const funcs = (text.match(/^static \S+ kiln_(?:add|sub|mul|div|mod|neg|shl|shr)\w*\(/gm) ?? []).length;
      if (macros === 0 || funcs === 0) continue;
      both++;
      const src = join(dir, `mix-${seed}.c`);
      writeFileSync(src, text);
      const c = spawnSync('gcc', ['-O1', '-w', src, '-o', join(dir, `mix-${seed}`)], { encoding: 'utf8' });
      expect(c.status, c.stderr).toBe(0);
      const out = spawnSync(join(dir, `mix-${seed}`), [], { encoding: 'utf8' }).stdout.trim();
      expect(out, `seed ${seed}`).toBe(g.expected.trim());
    }
    expect(both).toBe(3);
  });
});
