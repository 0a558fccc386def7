// Vitest global set-up: builds Kiln's JavaScript once (tsc into a scratch folder, the checkout's
// dist/ left alone) so that the `kiln` processes tests and benchmark smoke runs start are the
// compiled command a user runs, not the sources through tsx: each start-up is then about a
// second shorter, over several hundred processes in a run of the suite.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Builds into a scratch folder and publishes the entry as KILN_ENTRY; returns the clean-up. */
export default function setup(): () => void {
  const work = mkdtempSync(join(tmpdir(), 'kiln-test-build-'));
  const r = spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      join(ROOT, 'tsconfig.build.json'),
      '--outDir',
      join(work, 'dist'),
    ],
    { encoding: 'utf8' },
  );
  const main = join(work, 'dist/cli/main.js');
  if (r.status !== 0 || !existsSync(main)) {
    rmSync(work, { recursive: true, force: true });
    throw new Error(`cannot build Kiln for the tests (tsc -p tsconfig.build.json):\n${r.stdout}${r.stderr}`);
  }
  copyFileSync(join(ROOT, 'package.json'), join(work, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'));
  process.env.KILN_ENTRY = main;
  return () => rmSync(work, { recursive: true, force: true });
}
