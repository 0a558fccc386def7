// Limits hold without Kiln: after `kill -9` of a campaign, a compiler it started is still killed at
// its limit (coreutils `timeout` wraps every child), and the next campaign kills what escaped.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../support/cc.js';
import { startKiln } from './support/cli.js';
import { writeFake } from './support/fakes.js';
import { alive, dies } from '../support/proc.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('limits after kill -9 of kiln', () => {
  let work: string;

  beforeAll(() => {
    requireTool('gcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-limits-'));
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('kills a hanging compiler at its limit although kiln is gone', async () => {
    const fake = writeFake(join(work, 'bin'), 'hangpid', 'hang-pid', [1]);
    const pids = join(work, 'bin', 'hangpid.state', 'pids');
    const limitMs = 4000;
    const { child, done } = startKiln([
      'fuzz',
      '--mode',
      'csmith',
      '--compilers',
      fake,
      '--opts',
      '-O0',
      '--compile-timeout',
      '4s',
      '--tests',
      '1',
      '--seed-start',
      '1',
      '--size',
      'small',
      '-j',
      '1',
      '--out',
      join(work, 'out'),
    ]);
    // Wait for the compiler to start (generation comes first).
    const deadline = Date.now() + 60_000;
    while (!existsSync(pids) && Date.now() < deadline) await sleep(50);
    expect(existsSync(pids)).toBe(true);
    const started = Date.now();
    const pid = Number(readFileSync(pids, 'utf8').trim());
    child.kill('SIGKILL');
    await done;
    // Kiln is gone; its compiler is not, yet.
    expect(alive(pid)).toBe(true);
    // Killed by its limit, not earlier by anything else (it outlived kiln above), and well before
    // the fake's own 60 s sleep ends: the wait leaves room for a loaded machine.
    while (alive(pid) && Date.now() - started < limitMs + 36_000) await sleep(100);
    expect(alive(pid)).toBe(false);
  }, 90_000);

  it('leaves no process that escaped with setsid: the next campaign kills it', async () => {
    const fake = writeFake(join(work, 'bin'), 'escaper', 'escape', [1]);
    const pids = join(work, 'bin', 'escaper.state', 'pids');
    const { child, done } = startKiln([
      'fuzz',
      '--mode',
      'csmith',
      '--compilers',
      fake,
      '--opts',
      '-O0',
      '--compile-timeout',
      '30s',
      '--tests',
      '1',
      '--seed-start',
      '1',
      '--size',
      'small',
      '-j',
      '1',
      '--out',
      join(work, 'out-escape'),
    ]);
    const deadline = Date.now() + 60_000;
    while (!existsSync(pids) && Date.now() < deadline) await sleep(50);
    const pid = Number(readFileSync(pids, 'utf8').trim());
    child.kill('SIGKILL');
    await done;
    await sleep(500);
    // Outside the compiler's process group, nothing but its tag ties it to the dead campaign.
    expect(alive(pid)).toBe(true);
    const { done: next } = startKiln([
      'fuzz',
      '--mode',
      'csmith',
      '--compilers',
      'gcc',
      '--opts',
      '-O0',
      '--tests',
      '1',
      '--size',
      'small',
      '-j',
      '1',
      '--out',
      join(work, 'out-next'),
    ]);
    expect((await next).status).toBe(0);
    expect(await dies(pid)).toBe(true);
  }, 120_000);
});
