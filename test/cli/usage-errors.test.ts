// Command lines Kiln must refuse with one coded line and exit status 2: unknown commands and
// flags (Commander's own wording used to come through), seeds `kiln gen --count` would write but
// `--seed` refuses, and output paths the kernel refuses to create (`/proc/foo` used to spin forever).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirectory } from '../../src/store/files.js';
import { runKiln, startKiln, type CliResult } from '../harness/support/cli.js';

/** Runs kiln, killing it after 25 s (a spinning kiln must fail the test, not outlive it). */
async function runKilnWithin(args: readonly string[]): Promise<CliResult> {
  const { child, done } = startKiln(args);
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  try {
    return await done;
  } finally {
    clearTimeout(timer);
  }
}

function expectCoded(r: CliResult, code: string, text?: RegExp): void {
  expect(r.status, r.stderr).toBe(2);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(new RegExp(`^kiln: error\\[${code}\\]: `));
  if (text) expect(lines[0]).toMatch(text);
  expect(
    lines.slice(1).every((l) => l.startsWith('kiln: hint: ')),
    r.stderr,
  ).toBe(true);
  expect(r.stderr).not.toMatch(/\n\s+at |^error:/m);
}

const work = mkdtempSync(join(tmpdir(), 'kiln-usage-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('kiln usage errors', () => {
  it('an unknown command is coded, with the suggestion in the hint', async () => {
    const r = await runKiln(['fuz', '--time', '1s']);
    expectCoded(r, 'KILN_UNKNOWN_COMMAND', /unknown command 'fuz'/);
    expect(r.stderr).toMatch(/hint: did you mean fuzz\?/);
  });

  it('an unknown flag is coded and names the command', async () => {
    const r = await runKiln(['fuzz', '--tim', '2m', '--out', join(work, 'never')]);
    expectCoded(r, 'KILN_UNKNOWN_OPTION', /unknown option '--tim' for 'kiln fuzz'/);
    expect(r.stderr).toMatch(/did you mean --time\?.*kiln fuzz --help/);
  });

  it('a missing or extra argument is coded', async () => {
    expectCoded(await runKiln(['gen', '--seed']), 'KILN_BAD_ARGUMENTS', /kiln gen: .*--seed/);
    expectCoded(await runKiln(['gen', 'extra']), 'KILN_BAD_ARGUMENTS', /too many arguments/);
  });

  it('help and version still exit 0', async () => {
    const h = await runKiln(['help']);
    expect(h.status).toBe(0);
    expect(h.stdout).toMatch(/Usage: kiln/);
    expect((await runKiln(['--version'])).status).toBe(0);
  });

  it('gen --count never writes a seed that --seed refuses', async () => {
    const max = (1n << 63n) - 1n;
    const r = await runKiln(['gen', '--seed', String(max), '--count', '2', '-o', join(work, 'top')]);
    expectCoded(r, 'KILN_BAD_OPTION', /--count.*at most 1 from seed 9223372036854775807/);
    expectCoded(
      await runKiln(['gen', '--seed', String(max + 1n)]),
      'KILN_BAD_OPTION',
      /--seed.*from 0 to 9223372036854775807/,
    );
  });
});

describe('output folders the kernel refuses', () => {
  it('makeDirectory fails at once where mkdir -p would spin (/proc/foo)', () => {
    expect(() => makeDirectory('/proc/kiln-no-such/dir')).toThrow(/ENOENT/);
    const file = join(work, 'plain-file');
    makeDirectory(join(work, 'a', 'b', 'c'));
    expect(() => makeDirectory(join(work, 'a', 'b', 'c'))).not.toThrow();
    writeFileSync(file, 'x');
    expect(() => makeDirectory(join(file, 'sub'))).toThrow(/ENOTDIR/);
  });

  it('kiln fuzz --out /proc/foo and kiln gen -o /proc/foo/… are one-line errors', async () => {
    expectCoded(
      await runKilnWithin(['fuzz', '--compilers', 'gcc', '--tests', '1', '--out', '/proc/kiln-foo']),
      'KILN_FILE',
      /\/proc\/kiln-foo: cannot create the output folder/,
    );
    expectCoded(await runKilnWithin(['gen', '--count', '2', '-o', '/proc/kiln-foo']), 'KILN_FILE', /\/proc\/kiln-foo/);
    expectCoded(
      await runKilnWithin(['gen', '--mode', 'yarpgen', '-o', '/proc/kiln-foo/x']),
      'KILN_FILE',
      /\/proc\/kiln-foo/,
    );
    expectCoded(await runKiln(['gen', '-o', '/proc/kiln-foo/x.c']), 'KILN_FILE', /\/proc\/kiln-foo\/x\.c/);
  });
});
