// What the benchmarks comparing Kiln's programs with Csmith's share: Debian's csmith run once per
// seed, a C file built with `gcc -O0 --coverage`, run once and read back through gcov's JSON,
// and a pool running such jobs a few at a time.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { runProcess } from '../../src/harness/process.js';

/** gcov's JSON format (gcc 9 and later), the parts read here. */
export interface GcovJson {
  readonly files: readonly {
    readonly file: string;
    readonly lines: readonly {
      readonly line_number: number;
      readonly count: number;
      readonly function_name?: string;
    }[];
  }[];
}

/** Writes `csmith-S.c` into `dir` for each seed S of `first` … `first + count - 1`. */
export function csmithPrograms(dir: string, first: number, count: number): void {
  for (let s = first; s < first + count; s++) {
    // csmith writes platform.info into its working directory: keep it in the scratch folder.
    const r = spawnSync('csmith', ['-s', String(s), '-o', join(dir, `csmith-${s}.c`)], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (r.status !== 0) throw new Error(`csmith failed on seed ${s}: ${r.stderr}`);
  }
}

/**
 * Builds the C file `src` with `gcc -O0 --coverage` in its own folder `work` (csmith's headers
 * found in /usr/include/csmith), runs it once within `limitMs`, and returns gcov's counts;
 * undefined when the run did not finish in time (its counts are lost).
 */
export async function coverageRun(src: string, work: string, limitMs: number): Promise<GcovJson | undefined> {
  mkdirSync(work, { recursive: true });
  const base = src.split('/').pop()!.replace(/\.c$/, '');
  const exe = join(work, base);
  const cc = await runProcess('gcc', ['-O0', '--coverage', '-w', '-I/usr/include/csmith', src, '-o', exe], {
    cwd: work,
    timeoutMs: 300_000,
  });
  if (cc.status !== 0) throw new Error(`gcc failed on ${src}: ${cc.stderr.slice(0, 500)}`);
  const run = await runProcess(exe, [], { cwd: work, timeoutMs: limitMs });
  if (run.timedOut) return undefined;
  const gcov = await runProcess('gcov', ['--json-format', '-o', work, src], { cwd: work, timeoutMs: 120_000 });
  if (gcov.status !== 0) throw new Error(`gcov failed on ${src}: ${gcov.stderr.slice(0, 500)}`);
  return JSON.parse(gunzipSync(readFileSync(join(work, `${base}.gcov.json.gz`))).toString('utf8')) as GcovJson;
}

/** Whether gcov's file entry `file` is the program `src` itself (not a header it includes). */
export function isOwnFile(file: string, src: string): boolean {
  const base = src.split('/').pop()!.replace(/\.c$/, '');
  return file === src || file.endsWith(`/${base}.c`) || file === `${base}.c`;
}

/** Runs `f` over the items, `jobs` at a time, keeping the results in order. */
export async function pool<T, R>(items: readonly T[], jobs: number, f: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await f(items[i]!);
      }
    }),
  );
  return out;
}
