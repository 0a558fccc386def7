// Vitest global set-up: the `kiln` processes tests and benchmark smoke runs start are the compiled
// command a user runs, not the sources through tsx (each start-up is then about a second shorter,
// over several hundred processes in a run of the suite). When the checkout's dist/ was built from
// the sources as they are (`npm ci` builds it, so on CI it always is), the tests use it; otherwise
// Kiln is built once into a scratch folder, the checkout's dist/ left alone.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Modification times of the files under `dir` whose names match `keep`. */
function mtimes(dir: string, keep: RegExp): number[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && keep.test(e.name))
    .map((e) => statSync(join(e.parentPath, e.name)).mtimeMs);
}

/**
 * The checkout's built entry when dist/ is newer than everything it is built from (every .js of
 * dist/ written after the last change to src/, the tsconfig files and package.json), as make
 * would judge it; undefined when it is missing or stale.
 */
function freshDist(): string | undefined {
  const main = join(ROOT, 'dist/cli/main.js');
  if (!existsSync(main)) return undefined;
  const built = Math.min(...mtimes(join(ROOT, 'dist'), /\.js$/));
  const inputs = [
    ...mtimes(join(ROOT, 'src'), /\.ts$/),
    ...['tsconfig.json', 'tsconfig.build.json', 'package.json'].map((f) => statSync(join(ROOT, f)).mtimeMs),
  ];
  return built > Math.max(...inputs) ? main : undefined;
}

/** Publishes the entry as KILN_ENTRY (building into a scratch folder unless dist/ is fresh); returns the clean-up. */
export default function setup(): () => void {
  const fresh = freshDist();
  if (fresh) {
    process.env.KILN_ENTRY = fresh;
    return () => {};
  }
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
