// `kiln reduce --crash "CC OPTS" FILE.c`: after the text reduction, the same bundle a finding's
// crash gets (report.md with the crash's signature, and the LLVM or GCC reproducer).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { resolveCompiler } from '../harness/compilers.js';
import { runProcess } from '../harness/process.js';
import { crashReproducers } from '../reduce/crash-repro.js';
import type { ReduceFileResult } from '../reduce/text/reduce-file.js';
import { writeCrashFileBundle } from '../report/bundle.js';

/** Options of {@link crashFileBundle}. */
export interface CrashFileBundleOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (line: string) => void;
}

/**
 * Writes the bundle of a file reduced with `--crash CC`, next to the reduced file (`bug.reduced.c` →
 * `bug.reduced/`); returns its report.md, or undefined when the command's compiler is neither gcc nor clang.
 */
export async function crashFileBundle(
  crash: string,
  reduced: ReduceFileResult,
  originalLines: number,
  o: CrashFileBundleOptions = {},
): Promise<string | undefined> {
  const [command, ...options] = crash.trim().split(/\s+/);
  const compiler = await resolveCompiler(command!);
  if (compiler.family !== 'gcc' && compiler.family !== 'clang') return undefined;
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), 'kiln-crash-file-'));
  let stderr: string;
  try {
    writeFileSync(join(work, 'reduced.c'), reduced.result.text);
    const r = await runProcess(compiler.command, [...options, '-c', 'reduced.c', '-o', 'reduced.o'], {
      cwd: work,
      timeoutMs: 120_000,
      env: { LC_ALL: 'C', TMPDIR: work },
      ...(o.signal ? { signal: o.signal } : {}),
    });
    stderr = r.stderr;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const crashes = await crashReproducers({
    compiler,
    options,
    source: reduced.result.text,
    stderr,
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
  });
  const ext = extname(reduced.output);
  return writeCrashFileBundle({
    folder: ext ? reduced.output.slice(0, -ext.length) : `${reduced.output}.bundle`,
    compiler,
    options,
    source: reduced.result.text,
    originalLines,
    seconds: reduced.result.ms / 1000 + (Date.now() - started) / 1000,
    stderr,
    crash: crashes,
    test: reduced.script,
  });
}

/** Non-blank lines of a file (its size as reports count it). */
export function fileLines(path: string): number {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '').length;
}
