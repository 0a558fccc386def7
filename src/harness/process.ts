import { spawn } from 'node:child_process';
import { newTag, reapTagged, TAG_VAR, timeoutSeconds } from './sandbox.js';

/** Node's timers hold at most 2^31 - 1 ms (about 24.8 days); longer ones fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** How long a child's output pipes may stay open after it exited (a background child holding them). */
const OUTPUT_GRACE_MS = 500;

/** A pending {@link setLongTimeout}. */
export interface LongTimer {
  cancel(): void;
}

/**
 * setTimeout for any duration: a delay above {@link MAX_TIMER_MS} is chained through shorter
 * timers instead of overflowing (Node would fire it after 1 ms). Infinite delays never fire.
 */
export function setLongTimeout(fn: () => void, ms: number, opts: { unref?: boolean } = {}): LongTimer {
  let handle: NodeJS.Timeout | undefined;
  let cancelled = false;
  const due = Date.now() + ms;
  const arm = (): void => {
    if (cancelled || !Number.isFinite(due)) return;
    const left = due - Date.now();
    if (left <= 0) return fn();
    handle = setTimeout(left > MAX_TIMER_MS ? arm : fn, Math.min(left, MAX_TIMER_MS));
    if (opts.unref) handle.unref();
  };
  arm();
  return {
    cancel: () => {
      cancelled = true;
      if (handle) clearTimeout(handle);
    },
  };
}

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
  /**
   * Keep at most this many bytes of stdout and of stderr each (default 1 MiB); stdout keeps its first bytes, stderr its
   * first three quarters and its last quarter.
   */
  readonly maxOutputBytes?: number;
  /** Aborts the run early (the process group is killed). */
  readonly signal?: AbortSignal;
  /**
   * The child's tag when the command already carries it (a sandboxed `env -i … KILN_TAG=…`);
   * otherwise a fresh tag is put into the child's environment. Either way, processes carrying it
   * are killed when the child finishes, even those that left the process group with `setsid`.
   */
  readonly tag?: string;
  /** Set when `command` is already wrapped in `timeout` (a sandboxed command): no second wrapper. */
  readonly wrapped?: boolean;
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

/** The last `limit` bytes of a stream (kept as chunks, trimmed as they come). */
class TailBuffer {
  private chunks: Buffer[] = [];
  private length = 0;

  constructor(readonly limit: number) {}

  push(d: Buffer): void {
    this.chunks.push(d);
    this.length += d.length;
    while (this.chunks.length > 1 && this.length - this.chunks[0]!.length >= this.limit)
      this.length -= this.chunks.shift()!.length;
  }

  /** The last `limit` bytes pushed. */
  bytes(): Buffer {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit));
  }
}

/**
 * A stream kept as head and tail: one text when nothing between them was dropped, else both around a line saying how
 * much was.
 */
function headAndTail(head: Buffer[], tail: TailBuffer, seen: number): string {
  const h = Buffer.concat(head);
  const t = tail.bytes();
  const dropped = seen - h.length - t.length;
  return dropped > 0
    ? `${h.toString('utf8')}\n[... ${dropped} bytes left out ...]\n${t.toString('utf8')}`
    : Buffer.concat([h, t]).toString('utf8');
}

/** Margin of Kiln's own timer over the `timeout` wrapper's (the wrapper is the one expected to fire). */
const BACKSTOP_MS = 1000;

/** Process groups of the children runProcess started and has not yet seen end. */
const LIVE_GROUPS = new Set<number>();
let exitWatched = false;

/**
 * Kills every live child's group when Kiln exits, however it exits (`process.exit` on a second
 * Ctrl-C included): children run in their own groups, so a terminal's Ctrl-C does not reach them,
 * and their `timeout` wrapper would let them run on to their limit.
 */
function watchExit(): void {
  if (exitWatched) return;
  exitWatched = true;
  process.on('exit', killLiveChildren);
}

/** Sends SIGKILL to the group of every child runProcess has running (for exit paths). */
export function killLiveChildren(): void {
  for (const pid of LIVE_GROUPS) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

/**
 * Runs a command in its own process group with a wall-clock limit, an optional memory limit and
 * bounded output capture. The limit is enforced twice: by coreutils `timeout` around the command
 * (so it holds when Kiln itself is killed) and by Kiln's own timer shortly after it; either kills
 * the whole group (compilers fork `cc1`, `as`, `ld`; a hung child must not survive its parent).
 * The run ends when the child exits, even if a background process it left still holds its output
 * open (after {@link OUTPUT_GRACE_MS}); then everything carrying the child's tag is killed.
 */
export function runProcess(command: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  watchExit();
  const maxBytes = opts.maxOutputBytes ?? 1 << 20;
  const tag = opts.tag ?? newTag();
  const limited =
    opts.memoryMb !== undefined
      ? ['prlimit', `--as=${opts.memoryMb * 1024 * 1024}`, '--', command, ...args]
      : [command, ...args];
  const full = opts.wrapped ? limited : ['timeout', '-s', 'KILL', timeoutSeconds(opts.timeoutMs), ...limited];
  const [cmd, argv] = [full[0]!, full.slice(1)];
  const env =
    opts.tag !== undefined ? { ...process.env, ...opts.env } : { ...process.env, ...opts.env, [TAG_VAR]: tag };
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(cmd, argv, {
        cwd: opts.cwd,
        env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (e) {
      reject(
        new SpawnError(command, (e as NodeJS.ErrnoException).code, `cannot run ${command}: ${(e as Error).message}`),
      );
      return;
    }
    const leader = child.pid;
    if (leader !== undefined) LIVE_GROUPS.add(leader);
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
    const timer = setLongTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs + BACKSTOP_MS);
    let exited: { status: number | null; signal: NodeJS.Signals | null; durationMs: number } | undefined;
    let grace: NodeJS.Timeout | undefined;
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
    // stderr keeps its head and its tail: a compiler's decisive line (the linker's error after
    // megabytes of warnings, the end of a crash report) comes last.
    const errTail = new TailBuffer(Math.floor(maxBytes / 4));
    const errHead = maxBytes - errTail.limit;
    child.stderr.on('data', (d: Buffer) => {
      if (errLen < errHead) err.push(d.subarray(0, errHead - errLen));
      if (errLen + d.length > errHead) errTail.push(errLen >= errHead ? d : d.subarray(errHead - errLen));
      errLen += d.length;
      if (errLen > maxBytes) truncated = true;
    });
    child.stdin.on('error', () => {
      // The child may exit without reading its input.
    });
    child.stdin.end(opts.input ?? '');
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (leader !== undefined) LIVE_GROUPS.delete(leader);
      if (settled) return;
      settled = true;
      timer.cancel();
      if (grace) clearTimeout(grace);
      opts.signal?.removeEventListener('abort', onAbort);
      reject(new SpawnError(command, e.code, `cannot run ${command}: ${e.message}`));
    });
    // The child is done when it exits; its pipes may be held open by a background process it
    // started (a compiler daemon, `cmd &`): give them a moment for the last output, then cut them.
    child.on('exit', (status, signal) => {
      const durationMs = Date.now() - started;
      exited = { status, signal, durationMs };
      // `timeout -s KILL` kills its whole group, itself included: a SIGKILL at the limit is the wrapper's.
      if (signal === 'SIGKILL' && durationMs >= opts.timeoutMs * 0.98 && !aborted) timedOut = true;
      grace = setTimeout(() => {
        killGroup();
        reapTagged({ tag }, child.pid);
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, OUTPUT_GRACE_MS);
    });
    const finish = (): void => {
      if (settled || !exited) return;
      settled = true;
      timer.cancel();
      if (grace) clearTimeout(grace);
      opts.signal?.removeEventListener('abort', onAbort);
      // Reap anything the child left behind in its group (e.g. a forked cc1 after a driver crash),
      // and anything that left the group but still carries the child's tag.
      killGroup();
      reapTagged({ tag }, child.pid);
      if (leader !== undefined) LIVE_GROUPS.delete(leader);
      // The wrapper could not start the command: the same error as a direct spawn would give.
      const startFailure =
        !opts.wrapped && (exited.status === 126 || exited.status === 127)
          ? /^timeout: failed to run command .*: (.*)$/m.exec(Buffer.concat(err).toString('utf8'))
          : null;
      if (startFailure) {
        const why = startFailure[1]!;
        const code = /No such file/.test(why) ? 'ENOENT' : /Permission denied/.test(why) ? 'EACCES' : undefined;
        reject(new SpawnError(command, code, `cannot run ${command}: ${why}`));
        return;
      }
      resolve({
        status: exited.status,
        signal: exited.signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: headAndTail(err, errTail, errLen),
        timedOut,
        aborted,
        truncated,
        durationMs: exited.durationMs,
      });
    };
    child.on('close', finish);
  });
}
