// kiln gen --count K -j N: the seeds are generated in N processes, and everything the command
// leaves behind (the files, stdout, stderr) is what -j 1 leaves; an error at one seed stops it
// after the seeds before it were printed, with the error's code.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKiln } from '../harness/support/cli.js';

/** Every file under `dir`, by relative path, with its contents. */
function tree(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) Object.assign(out, tree(path, `${prefix}${name}/`));
    else out[prefix + name] = readFileSync(path, 'utf8');
  }
  return out;
}

/** A --json line without what differs between two runs (time, and the folder's name). */
const stable = (stdout: string): unknown[] =>
  stdout
    .trim()
    .split('\n')
    .map((l) => {
      const { genMs: _t, file: _f, ...rest } = JSON.parse(l) as Record<string, unknown>;
      return rest;
    });

describe('kiln gen -j', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'kiln-gen-jobs-'));
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('writes the same files and prints the same lines, in seed order, with one process or three', async () => {
    const args = ['gen', '--seed', '40', '--count', '7', '--mode', 'mixed', '--size', 'small', '--json'];
    const one = await runKiln([...args, '-o', join(work, 'one'), '-j', '1']);
    const three = await runKiln([...args, '-o', join(work, 'three'), '-j', '3']);
    expect(one.status, one.stderr).toBe(0);
    expect(three.status, three.stderr).toBe(0);
    expect(three.stderr).toBe(one.stderr);
    const lines = stable(three.stdout);
    expect(lines.map((l) => (l as { seed: string }).seed)).toEqual(['40', '41', '42', '43', '44', '45', '46']);
    expect(lines).toEqual(stable(one.stdout));
    const files = tree(join(work, 'three'));
    expect(Object.keys(files).length).toBeGreaterThanOrEqual(7);
    expect(files).toEqual(tree(join(work, 'one')));
  });

  it('stops at a seed whose file cannot be written, after printing the seeds before it, with KILN_FILE', async () => {
    const dir = join(work, 'blocked');
    // A directory where seed 3's file must go: writing it fails.
    mkdirSync(join(dir, 'kiln-3.c'), { recursive: true });
    const r = await runKiln(['gen', '--seed', '1', '--count', '5', '--size', 'small', '--json', '-o', dir, '-j', '2']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/error\[KILN_FILE\]: .*kiln-3\.c: cannot write/);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(stable(r.stdout).map((l) => (l as { seed: string }).seed)).toEqual(['1', '2']);
  });

  it('refuses a job count of 0 with KILN_BAD_OPTION', async () => {
    const r = await runKiln(['gen', '--count', '2', '-o', join(work, 'zero'), '-j', '0']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/error\[KILN_BAD_OPTION\]: invalid value '0' for --jobs/);
  });
});
