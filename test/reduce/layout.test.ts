// A finding whose failure depends on the stored file's layout (a fake compiler that miscompiles
// the program only while it has the campaign's header comment): the IR reducer, which prints every
// candidate anew, cannot keep it; `kiln reduce` says so and reduces the stored file as text, each
// candidate behind the UB guards. (The compile-side case, and the campaign's background reducer
// giving the same result, are test/campaign/layout-fallback.test.ts.)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runProcess } from '../../src/harness/process.js';
import { oneFinding } from '../harness/support/fakes.js';
import { runKiln } from '../harness/support/cli.js';

/**
 * Candidates each reduction judges: a bound by work, so the outcome does not depend on the
 * machine's speed (a time budget gave no step at all on a loaded machine). The top-level pass
 * commits within the first 30 (measured: 25 were too few to shrink the program); each candidate
 * that builds costs sanitizer builds.
 */
const CANDIDATES = 30;

describe('kiln reduce of a layout-dependent finding', () => {
  const work = mkdtempSync(join(tmpdir(), 'kiln-layout-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('reduces a run-side failure as text against gcc -O0, behind the UB guards', async () => {
    const { dir, fake } = await oneFinding(work, 'fake-layout-wrong', 'layout-wrong');
    expect(JSON.parse(readFileSync(join(dir, 'finding.json'), 'utf8')).outcome).toBe('wrong-code');
    const red = await runKiln(['reduce', dir, '--jobs', '2', '--max-candidates', String(CANDIDATES)]);
    expect(red.status, red.stderr).toBe(0);
    expect(red.stderr).toContain("depends on the file's layout");
    expect(red.stderr).toContain('guarded against undefined behaviour');
    const script = readFileSync(join(dir, 'reduced.c.test.sh'), 'utf8');
    expect(script).toContain('repro.sh');
    expect(script).toContain('-fsanitize=undefined,address');
    // kiln check runs MSan and valgrind per candidate; Eva (a minute on a campaign's program) once, on the result.
    expect(script).toContain('--tools msan,valgrind ');
    expect(red.stderr).toMatch(/Frama-C Eva on the result: .*reduced\.c: clean/);
    const reduced = readFileSync(join(dir, 'reduced.c'), 'utf8');
    const original = readFileSync(join(dir, 'prog.c'), 'utf8');
    expect(reduced.length).toBeLessThan(original.length);
    // The reduced program: gcc -O0 prints one checksum, the fake another, and repro.sh judged
    // against gcc's output says the failure shows; against the fake's own output it does not.
    const scratch = join(work, 'check-wrong');
    const sh = (cmd: string) => runProcess('sh', ['-c', cmd], { timeoutMs: 60_000, cwd: scratch });
    await runProcess('sh', ['-c', `mkdir -p ${scratch} && cp ${join(dir, 'reduced.c')} ${scratch}/prog.c`], {
      timeoutMs: 10_000,
    });
    const good = await sh('gcc -O0 -w prog.c -o good -lm && ./good');
    const bad = await sh(`${fake} -O0 prog.c -o bad -lm && ./bad`);
    expect(good.status, good.stderr).toBe(0);
    expect(bad.stdout).not.toBe(good.stdout);
    expect((await sh(`KILN_EXPECTED='${good.stdout.trim()}' ${join(dir, 'repro.sh')}`)).status).toBe(0);
    expect((await sh(`KILN_EXPECTED='${bad.stdout.trim()}' ${join(dir, 'repro.sh')}`)).status).toBe(1);
  }, 900_000);
});
