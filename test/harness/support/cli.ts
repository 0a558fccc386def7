// Running the `kiln` command from tests: the TypeScript entry through tsx, as a real child process
// (campaigns fork generation processes, install signal handlers and exit with codes).
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Repository root. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const ENTRY = fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url));

/**
 * The node arguments that start `kiln`: the build of the test run's global set-up
 * (test/support/build.ts publishes it as KILN_ENTRY), or the sources through tsx when a test file
 * runs without it.
 */
export function kilnArgs(): string[] {
  return process.env.KILN_ENTRY ? [process.env.KILN_ENTRY] : ['--import', TSX, ENTRY];
}

/** What a finished `kiln` run printed. */
export interface CliResult {
  /** Process id of the kiln process (its temporary folders are named after it). */
  readonly pid: number;
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Starts `kiln <args>`; the caller may signal it. */
export function startKiln(
  args: readonly string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [...kilnArgs(), ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (status, signal) => resolve({ pid: child.pid ?? -1, status, signal, stdout, stderr })),
  );
  return { child, done };
}

/** Runs `kiln <args>` to completion. */
export function runKiln(
  args: readonly string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  return startKiln(args, opts).done;
}
