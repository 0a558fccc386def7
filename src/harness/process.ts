import { spawn } from 'node:child_process';

/** Limits and environment for one child process. */
export interface RunOptions {
  /** Working directory. */
  readonly cwd?: string;
  /** Wall-clock limit; on expiry the whole process group is killed with SIGKILL. */
  readonly timeoutMs: number;
  /** Address-space limit in MiB (applied with `prlimit`); omit for sanitizer builds, which reserve huge mappings. */
  readonly memoryMb?: number;
  /** Extra environment variables (merged over the parent's). */
  readonly env?: Readonly<Record<string, string>>;
  /** Data written to the child's stdin (stdin is closed either way). */
  readonly input?: string;
  /** Keep at most this many bytes of stdout and of stderr each (default 1 MiB). */
  readonly maxOutputBytes?: number;
  /** Aborts the run early (the process group is killed). */
  readonly signal?: AbortSignal;
}

/** What a finished child process did. */
export interface RunResult {
  /** Exit status, or null when killed by a signal. */
  readonly status: number | null;
  /** Terminating signal name, if any. */
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** True when Kiln killed the child for exceeding its time limit. */
  readonly timedOut: boolean;
  /** True when the run was cancelled through `signal`. */
  readonly aborted: boolean;
  /** True when output beyond `maxOutputBytes` was discarded. */
  readonly truncated: boolean;
  readonly durationMs: number;
}

/** Thrown when a command cannot be started at all (missing executable, bad cwd). */
export class SpawnError extends Error {
  constructor(
    readonly command: string,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'SpawnError';
  }
}

/**
 * Runs a command in its own process group with a wall-clock limit, an optional memory limit and
 * bounded output capture. A timeout or abort kills the whole group (compilers fork `cc1`, `as`,
 * `ld`; a hung child must not survive its parent).
 */
export function runProcess(command: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  const maxBytes = opts.maxOutputBytes ?? 1 << 20;
  const [cmd, argv] =
    opts.memoryMb !== undefined
      ? ['prlimit', [`--as=${opts.memoryMb * 1024 * 1024}`, '--', command, ...args]]
      : [command, [...args]];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(cmd, argv, {
        cwd: opts.cwd,
        env: opts.env ? { ...process.env, ...opts.env } : process.env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (e) {
      reject(new SpawnError(command, (e as NodeJS.ErrnoException).code, `cannot run ${command}: ${(e as Error).message}`));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outLen = 0;
    let errLen = 0;
    let truncated = false;
    let timedOut = false;
    let aborted = false;
    let settled = false;
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      killGroup();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();
    child.stdout.on('data', (d: Buffer) => {
      if (outLen < maxBytes) out.push(d.subarray(0, maxBytes - outLen));
      else truncated = true;
      outLen += d.length;
      if (outLen > maxBytes) truncated = true;
    });
    child.stderr.on('data', (d: Buffer) => {
      if (errLen < maxBytes) err.push(d.subarray(0, maxBytes - errLen));
      else truncated = true;
      errLen += d.length;
      if (errLen > maxBytes) truncated = true;
    });
    child.stdin.on('error', () => {
      // The child may exit without reading its input.
    });
    child.stdin.end(opts.input ?? '');
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      reject(new SpawnError(command, e.code, `cannot run ${command}: ${e.message}`));
    });
    child.on('close', (status, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      // Reap anything the child left behind in its group (e.g. a forked cc1 after a driver crash).
      killGroup();
      resolve({
        status,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        timedOut,
        aborted,
        truncated,
        durationMs: Date.now() - started,
      });
    });
  });
}
