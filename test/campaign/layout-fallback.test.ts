// `kiln fuzz --reduce` and `kiln reduce` treat a layout-dependent finding (a fake compiler that
// rejects the program only while it has the campaign's header comment) the same way: the
// background reducer of the campaign and the command both fall back to reducing the stored
// prog.c as text, and give the same reduced.c.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackgroundReducer } from '../../src/campaign/background-reduce.js';
import type { FolderReduction } from '../../src/campaign/reduce-folder.js';
import { oneFinding } from '../harness/support/fakes.js';
import { runKiln } from '../harness/support/cli.js';

/** Candidates each reduction judges: a bound by work, so both stop at the same step on any machine. */
const CANDIDATES = 80;

describe('a layout-dependent finding', () => {
  const work = mkdtempSync(join(tmpdir(), 'kiln-layout-fallback-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('is reduced as text to the same program by kiln fuzz --reduce (in the background) and kiln reduce', async () => {
    const { dir: finding } = await oneFinding(work, 'fake-layout', 'layout-reject');
    const background = join(work, 'background');
    const command = join(work, 'command');
    cpSync(finding, background, { recursive: true });
    cpSync(finding, command, { recursive: true });

    // The campaign's path: the reducer kiln fuzz --reduce runs, one job.
    const reduced: FolderReduction[] = [];
    const failed: string[] = [];
    const reducer = new BackgroundReducer(
      (_, r) => reduced.push(r),
      (_, message) => failed.push(message),
      undefined,
      { maxCandidates: CANDIDATES },
    );
    reducer.add(background);
    await reducer.close(false);
    expect(failed).toEqual([]);
    expect(reduced.map((r) => r.kind)).toEqual(['text']);

    // The command's path, with the same bound and one job.
    const red = await runKiln(['reduce', command, '--jobs', '1', '--max-candidates', String(CANDIDATES)]);
    expect(red.status, red.stderr).toBe(0);
    expect(red.stderr).toContain('reducing the stored prog.c as text');

    const original = readFileSync(join(command, 'prog.c'), 'utf8');
    const fromCommand = readFileSync(join(command, 'reduced.c'), 'utf8');
    expect(fromCommand.length).toBeLessThan(original.length);
    expect(readFileSync(join(background, 'reduced.c'), 'utf8')).toBe(fromCommand);
  }, 900_000);
});
