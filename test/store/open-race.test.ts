// Several processes creating one campaign database at the same moment: two `kiln fuzz` started
// at once on a new folder. Each must open it; the schema is created once.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { kilnArgs } from '../harness/support/cli.js';
import { SCHEMA_VERSION } from '../../src/store/db.js';

const work = mkdtempSync(join(tmpdir(), 'kiln-open-race-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The store module of the kiln the tests run (the build, or the sources through tsx). */
function storeModule(): { node: string[]; url: string } {
  const args = kilnArgs();
  if (process.env.KILN_ENTRY)
    return { node: [], url: pathToFileURL(join(dirname(dirname(process.env.KILN_ENTRY)), 'store/db.js')).href };
  return {
    node: args.slice(0, 2),
    url: pathToFileURL(fileURLToPath(new URL('../../src/store/db.ts', import.meta.url))).href,
  };
}

/**
 * Starts a process that loads the store, says so, and opens `out` for writing when a line arrives
 * on its stdin: the test sends it to every process once all have loaded, however long that took.
 */
function opener(out: string): {
  ready: Promise<void>;
  go: () => void;
  done: Promise<{ code: number | null; stderr: string }>;
} {
  const { node, url } = storeModule();
  const script = `const { openDatabase } = await import(${JSON.stringify(url)});
process.stdout.write('ready\\n');
await new Promise((r) => process.stdin.once('data', r));
openDatabase(${JSON.stringify(out)}, 'write').close();`;
  const child = spawn(process.execPath, [...node, '--input-type=module', '-e', script], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const ready = new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
  return { ready, go: () => child.stdin!.end('go\n'), done };
}

describe('opening a new database from several processes at once', () => {
  it('every process opens it and the schema is created once', async () => {
    for (let round = 0; round < 4; round++) {
      const out = join(work, `r${round}`);
      const procs = Array.from({ length: 6 }, () => opener(out));
      // A process that fails to load must not leave the others waiting for the start line.
      await Promise.race([Promise.all(procs.map((p) => p.ready)), Promise.all(procs.map((p) => p.done))]);
      for (const p of procs) p.go();
      const results = await Promise.all(procs.map((p) => p.done));
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      const db = new Database(join(out, 'kiln.db'), { readonly: true });
      try {
        expect(db.prepare('SELECT version FROM schema_version').all()).toEqual([{ version: SCHEMA_VERSION }]);
      } finally {
        db.close();
      }
    }
  }, 60_000);
});
