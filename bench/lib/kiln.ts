// How the benchmarks start Kiln as a user does: a fresh JavaScript build (in a scratch folder, so
// the checkout's dist/ is left alone), or the TypeScript sources through tsx.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The checkout's root folder. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The node arguments that start `kiln`: `dist/cli/main.js` of a build made in `work`, or with
 * `fromSource` the sources through tsx (a second or two more start-up per process); KILN_ENTRY, if
 * set, names a `dist/cli/main.js` to use instead of either.
 */
export function kilnEntry(work: string, fromSource: boolean): string[] {
  // A build made already (the test suite's, for the smoke runs): the same command, no second build.
  if (process.env.KILN_ENTRY) return [process.env.KILN_ENTRY];
  if (fromSource)
    return [
      '--import',
      pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href,
      join(ROOT, 'src/cli/main.ts'),
    ];
  const build = join(work, 'build');
  mkdirSync(build, { recursive: true });
  spawnSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/typescript/bin/tsc'),
      '-p',
      join(ROOT, 'tsconfig.build.json'),
      '--outDir',
      join(build, 'dist'),
    ],
    { stdio: 'ignore' },
  );
  const main = join(build, 'dist/cli/main.js');
  if (!existsSync(main)) throw new Error('cannot build Kiln (tsc -p tsconfig.build.json); try --from-source');
  copyFileSync(join(ROOT, 'package.json'), join(build, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(build, 'node_modules'));
  return [main];
}
