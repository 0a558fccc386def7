// `kiln triage` over an output folder and over one finding folder, then `kiln findings` grouping
// by the fingerprints it recorded; bad input gives one coded line and exit status 2.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KilnStore } from '../../src/store/store.js';
import { requireTool } from '../support/cc.js';
import { runKiln, type CliResult } from '../harness/support/cli.js';
import { findingJson, PROGRAM, writeFakeGcc, type FindingSpec } from '../triage/support.js';

function expectCoded(r: CliResult, code: string): void {
  expect(r.status, r.stderr).toBe(2);
  expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^kiln: error\\[${code}\\]: `));
  expect(r.stderr).toMatch(/\nkiln: hint: /);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('kiln triage', () => {
  let work: string;
  let out: string;

  beforeAll(() => {
    requireTool('gcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-cli-triage-'));
    out = join(work, 'kiln-out');
    const cc = writeFakeGcc(join(work, 'bin'), 'gcc-fake', ['-fno-tree-vrp']);
    const specs: FindingSpec[] = [
      { id: '1-1-gcc-fake-O2', compiler: 'gcc-fake', compilerPath: cc, options: '-O2' },
      { id: '1-2-gcc-fake-O3', compiler: 'gcc-fake', compilerPath: cc, options: '-O3' },
      {
        id: '1-3-gcc-O2',
        compiler: 'gcc',
        compilerPath: 'gcc',
        options: '-O2',
        outcome: 'compiler-crash',
        bucket: 'compiler-crash:gcc:internal compiler error: in foo',
      },
    ];
    const store = KilnStore.open(out, 'write');
    try {
      const c = store.createCampaign({ config: {}, compilers: [], seedStart: 1n });
      for (const [i, s] of specs.entries()) {
        const j = findingJson(s);
        store.recordProgram(c, {
          seed: BigInt(i + 1),
          status: 'tested',
          genMs: 1,
          tests: [],
          findings: [
            {
              id: s.id,
              outcome: j.outcome as string,
              bucket: j.bucket as string,
              compiler: s.compiler,
              compilerVersion: 'fake',
              options: s.options,
              command: [s.compilerPath, s.options, 'prog.c'],
              expected: j.expected as string,
              actual: j.actual as string,
              stderr: '',
              files: [
                { name: 'prog.c', content: PROGRAM },
                { name: 'finding.json', content: JSON.stringify(j) },
              ],
            },
          ],
        });
      }
    } finally {
      store.close();
    }
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('fingerprints every finding of an output folder, records them, and kiln findings groups by them', async () => {
    const r = await runKiln(['triage', out, '--no-versions']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual(
      [
        '1-1-gcc-fake-O2  gcc:-ftree-vrp',
        '1-2-gcc-fake-O3  gcc:-ftree-vrp',
        '1-3-gcc-O2  compiler-crash:gcc:internal compiler error: in foo',
      ].sort(),
    );
    expect(r.stderr).toMatch(/3 findings to triage/);
    expect(r.stderr).toMatch(/\[1\/3\] 1-1-gcc-fake-O2: probe 1: \(own options\) → shows/);
    expect(r.stderr).toMatch(/\[2\/3\] 1-2-gcc-fake-O3: gcc:-ftree-vrp {2}\(gcc-disable, \d+ compiles, [\d.]+ s\)/);
    const triage = JSON.parse(readFileSync(join(out, 'findings', '1-1-gcc-fake-O2', 'triage.json'), 'utf8')) as {
      fingerprint: string;
    };
    expect(triage.fingerprint).toBe('gcc:-ftree-vrp');

    const list = await runKiln(['findings', '--out', out]);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^3 findings in 2 groups \(all triaged\)/);
    expect(list.stdout).toMatch(
      new RegExp(
        String.raw`\ngcc:-ftree-vrp {2}\(2\)\n {2}1-1-gcc-fake-O2 .*wrong-code:gcc-fake:-O2.*\n` +
          ' {2}1-2-gcc-fake-O3 .*wrong-code:gcc-fake:-O3',
      ),
    );
    const byBucket = await runKiln(['findings', '--out', out, '--group', 'bucket']);
    expect(byBucket.stdout).toMatch(/^3 findings in 3 buckets/);
    const json = JSON.parse((await runKiln(['findings', '--out', out, '--json'])).stdout) as {
      id: string;
      fingerprint: string | null;
      group: string;
      reducedLines: number | null;
    }[];
    expect(json.map((f) => [f.id, f.fingerprint, f.reducedLines])).toEqual([
      ['1-1-gcc-fake-O2', 'gcc:-ftree-vrp', null],
      ['1-2-gcc-fake-O3', 'gcc:-ftree-vrp', null],
      ['1-3-gcc-O2', 'compiler-crash:gcc:internal compiler error: in foo', null],
    ]);

    // Nothing left to do; a finding folder is triaged again on request and recorded.
    const again = await runKiln(['triage', out]);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/0 findings to triage/);
    const s = KilnStore.open(out, 'write');
    s.db.prepare("UPDATE findings SET fingerprint = NULL WHERE id = '1-3-gcc-O2'").run();
    s.close();
    const one = await runKiln(['triage', join(out, 'findings', '1-3-gcc-O2'), '--json', '-q']);
    expect(one.status, one.stderr).toBe(0);
    expect(one.stderr).toBe('');
    expect(JSON.parse(one.stdout)).toMatchObject([{ findingId: '1-3-gcc-O2', method: 'bucket', steps: 0 }]);
    const t = KilnStore.open(out, 'read');
    expect(t.finding('1-3-gcc-O2')?.fingerprint).toBe('compiler-crash:gcc:internal compiler error: in foo');
    t.close();
  });

  it('rejects bad input with one coded line', async () => {
    expectCoded(await runKiln(['triage', join(work, 'nowhere')]), 'KILN_FILE');
    expectCoded(await runKiln(['triage', join(work, 'bin')]), 'KILN_NOT_A_FINDING');
    writeFileSync(join(work, 'file.c'), 'int main(void) { return 0; }\n');
    expectCoded(await runKiln(['triage', join(work, 'file.c')]), 'KILN_NOT_A_FINDING');
    expectCoded(await runKiln(['findings', '--out', out, '--group', 'pass']), 'KILN_BAD_OPTION');
  });
});
