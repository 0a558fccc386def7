// Ctrl-C during a text reduction: the first stops it and writes the best result so far; a second
// quits at once. Either way no test process outlives Kiln and its work folders are gone.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKiln } from '../../harness/support/cli.js';
import { dies } from '../../support/proc.js';

let dir: string;
const ring = readFileSync(new URL('./fixtures/ring.c', import.meta.url), 'utf8');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kiln-interrupt-test-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A reduction whose test is slow (each run records its pid, then sleeps): started, and signalled
 * once `runs` runs have begun. Returns the CLI result, the test pids seen, and its private TMPDIR.
 */
async function interrupted(name: string, signals: number) {
  const work = join(dir, name);
  const tmp = join(work, 'tmp');
  const pids = join(work, 'pids');
  mkdirSync(tmp, { recursive: true });
  mkdirSync(pids);
  const input = join(work, 'ring.c');
  writeFileSync(input, ring.replace('static unsigned checksum', '/* KILN_MARKER */ static unsigned checksum'));
  const script = join(work, 'test.sh');
  // The first run (the original) answers at once; later ones take 10 s, so they are in flight.
  writeFileSync(
    script,
    `#!/bin/sh\necho $$ > ${pids}/$$\n[ -e ${work}/first ] && sleep 10\ntouch ${work}/first\ngrep -q ` +
      `KILN_MARKER ring.c\n`,
  );
  chmodSync(script, 0o755);
  const output = join(work, 'out.c');
  const { child, done } = startKiln(['reduce', input, '--test', script, '-o', output, '-j', '2'], {
    env: { TMPDIR: tmp },
  });
  // Past the original's run, with candidates in flight.
  const deadline = Date.now() + 60_000;
  while (readdirSync(pids).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const t0 = Date.now();
  for (let i = 0; i < signals; i++) {
    child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 200));
  }
  const r = await done;
  return { r, ms: Date.now() - t0, pids: readdirSync(pids).map(Number), tmp, output, input };
}

describe('kiln reduce FILE interrupted', () => {
  it('stops at the first Ctrl-C, writes the best text the test accepted, and leaves nothing running', async () => {
    const { r, ms, pids, tmp, output } = await interrupted('once', 1);
    expect(r.status, r.stderr).toBe(130);
    expect(r.stderr).toContain('interrupted: writing the best result so far');
    expect(r.stderr).toContain('(stopped: interrupted)');
    // Candidates in flight were cancelled, not waited for (each takes 10 s).
    expect(ms).toBeLessThan(8_000);
    expect(readFileSync(output, 'utf8')).toContain('KILN_MARKER');
    for (const pid of pids) expect(await dies(pid)).toBe(true);
    expect(readdirSync(tmp)).toEqual([]);
  }, 120_000);

  it('quits at once on a second Ctrl-C: test processes killed, work folders removed', async () => {
    const { r, pids, tmp } = await interrupted('twice', 2);
    // 130, or killed by the second SIGINT itself when it lands as the process is already exiting
    // (its result written: seen on a loaded machine); either way a shell reports 130.
    expect(r.status === 130 || (r.status === null && r.signal === 'SIGINT'), JSON.stringify(r)).toBe(true);
    for (const pid of pids) expect(await dies(pid)).toBe(true);
    expect(readdirSync(tmp)).toEqual([]);
    expect(existsSync(tmp)).toBe(true);
  }, 120_000);
});
