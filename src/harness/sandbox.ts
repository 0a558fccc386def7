// How every compiler and test binary is started: one function builds the command and its
// environment, for Node (the campaign, its re-runs, the reducer, triage) and for sh (repro.sh), so
// a finding's script runs the binary exactly as the campaign did. The pieces, outermost first:
//
//   timeout -s KILL SECS       the wall-clock limit, enforced by coreutils even if Kiln is killed
//   setarch ARCH -R            no address-space randomisation: stack and heap addresses are fixed
//                              (left out where the system forbids it; see NO_RANDOMIZE)
//   prlimit [--as=N] --core=0  the memory limit; no core files (a crashing campaign cannot fill a disk)
//   env -i VAR=… …             a fixed, minimal environment (the same size on every run)
//   ./prog | cc …              a fixed argv[0] for the binary (run from a folder of fixed path length)
//
// A binary that reads uninitialised stack sees what start-up left there: with randomisation off
// and the environment, argv[0] and the working folder's length fixed, that is the same on every
// run on one machine (kernel and C library can still move it between machines). Every child also carries a tag
// (KILN_TAG) that survives `setsid`, so
// processes that escaped the process group can be found in /proc and killed (see reapTagged).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { machine } from 'node:os';

/** The environment variable that tags every child process of Kiln. */
export const TAG_VAR = 'KILN_TAG';

/** PATH of every test binary (binaries never look anything up; the value only has to be fixed). */
export const BINARY_PATH = '/usr/local/bin:/usr/bin:/bin';

/** Length of the path of the folder a binary runs in (padded up to it when shorter). */
export const RUN_DIR_LENGTH = 120;

/** Name of the padding folder's prefix inside a run folder. */
const RUN_DIR_STEM = 'run';

/** What kind of step is started: compiles keep the user's PATH and HOME (compilers find helpers through them). */
export type StepKind = 'compile' | 'run';

/** One sandboxed step. */
export interface SandboxSpec {
  readonly kind: StepKind;
  /** Wall-clock limit, enforced by `timeout` outside Kiln. */
  readonly timeoutMs: number;
  /** Address-space limit in MiB; undefined for none (sanitizer builds). */
  readonly memoryMb: number | undefined;
  /** The child's tag ({@link newTag}); 16 hex digits, so the environment's size never varies. */
  readonly tag: string;
  /** TMPDIR of a compile (its own folder, so compilers' temporary files are removed with it). */
  readonly tmpdir?: string;
}

/**
 * A word of the command: literal text, or a value that differs between machines or runs and is
 * therefore taken from the shell in repro.sh (`"$PATH"`, `"$TAG"`, `"$WORK"`, `$NORAND`); `lit`
 * is what Node passes (possibly several words, or none).
 */
type Word = string | { readonly lit: string | readonly string[]; readonly sh: string };

/**
 * Whether `setarch -R` works here, probed once when Kiln starts: some container sandboxes forbid
 * the personality call, and without it every step would fail. Randomisation then stays on (and
 * repro.sh makes the same check).
 */
const NO_RANDOMIZE: readonly string[] = probeNoRandomize();

function probeNoRandomize(): string[] {
  const argv = ['setarch', machine(), '-R'];
  try {
    return spawnSync(argv[0]!, [...argv.slice(1), 'true'], { stdio: 'ignore', timeout: 10_000 }).status === 0
      ? argv
      : [];
  } catch {
    return [];
  }
}

/** The sh line of repro.sh that sets `NORAND` the way {@link NO_RANDOMIZE} is probed. */
export function noRandomizeShell(): string {
  return 'if setarch "$(uname -m)" -R true 2>/dev/null; then NORAND="setarch $(uname -m) -R"; else NORAND=; fi';
}

/** A fresh tag: Kiln's pid (so a later campaign can tell orphans of a dead Kiln) and 32 random bits. */
export function newTag(pid: number = process.pid): string {
  return `${(pid >>> 0).toString(16).padStart(8, '0')}${randomBytes(4).toString('hex')}`;
}

/** Seconds for `timeout`, with millisecond precision and no exponent (`2.5`, `2160000`). */
export function timeoutSeconds(ms: number): string {
  const s = Math.max(1, Math.round(ms)) / 1000;
  return s.toFixed(3).replace(/\.?0+$/, '');
}

function words(spec: SandboxSpec, argv: readonly string[]): Word[] {
  const env: Word[] =
    spec.kind === 'run'
      ? [`PATH=${BINARY_PATH}`, 'LC_ALL=C']
      : [
          { lit: `PATH=${process.env.PATH ?? BINARY_PATH}`, sh: '"PATH=$PATH"' },
          { lit: `HOME=${process.env.HOME ?? '/'}`, sh: '"HOME=${HOME:-/}"' },
          'LC_ALL=C',
          'LANG=C',
          ...(spec.tmpdir !== undefined ? [{ lit: `TMPDIR=${spec.tmpdir}`, sh: '"TMPDIR=$WORK"' }] : []),
        ];
  return [
    'timeout',
    '-s',
    'KILL',
    timeoutSeconds(spec.timeoutMs),
    { lit: NO_RANDOMIZE, sh: '$NORAND' },
    'prlimit',
    ...(spec.memoryMb !== undefined ? [`--as=${spec.memoryMb * 1024 * 1024}`] : []),
    '--core=0',
    '--',
    'env',
    '-i',
    ...env,
    { lit: `${TAG_VAR}=${spec.tag}`, sh: `"${TAG_VAR}=$TAG"` },
    ...argv,
  ];
}

/** The exact argv that starts `argv` under the sandbox (for {@link runProcess}). */
export function sandboxArgv(spec: SandboxSpec, argv: readonly string[]): string[] {
  return words(spec, argv).flatMap((w) => (typeof w === 'string' ? [w] : w.lit));
}

/**
 * The same command as sh text for repro.sh, which must define `TAG` (16 hex digits), `NORAND`
 * ({@link noRandomizeShell}) and, for a compile with a TMPDIR, `WORK`. Literal words are quoted.
 */
export function sandboxShell(spec: SandboxSpec, argv: readonly string[]): string {
  return words(spec, argv)
    .map((w) => (typeof w === 'string' ? (/^[A-Za-z0-9_.,:=/+-]+$/.test(w) ? w : sq(w)) : w.sh))
    .join(' ');
}

/** Quotes a word for sh. */
export function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The folder a binary runs in, below `parent`: its path is padded to {@link RUN_DIR_LENGTH}
 * characters, so a program that looks at its working folder sees a path of the same length on
 * every run (the path is not in the environment: `env -i` drops PWD). A parent longer than that
 * gives a longer path; the length is then fixed only per parent.
 */
export function runDirIn(parent: string): string {
  const base = `${parent}/${RUN_DIR_STEM}`;
  return base + 'x'.repeat(Math.max(0, RUN_DIR_LENGTH - base.length));
}

/** The same computation in sh: sets `RUN` from `$WORK` (for repro.sh). */
export function runDirShell(): string[] {
  return [`RUN="$WORK/${RUN_DIR_STEM}"`, `while [ \${#RUN} -lt ${RUN_DIR_LENGTH} ]; do RUN="\${RUN}x"; done`];
}

/** A tag of 16 hex digits as sh computes it in repro.sh: the script's pid and the time. */
export function tagShell(): string {
  return `TAG=$(printf '%08x%08x' "$$" "$(date +%s)" | cut -c1-16)`;
}

/**
 * Kills (SIGKILL) every process of this user whose initial environment carries `tag`, or, with
 * `orphansOf`, any tag whose Kiln process (the pid in its first 8 digits) no longer exists.
 * `since` (the pid of the tagged child) limits the scan to processes started after it, by pid,
 * unless pids wrapped around meanwhile: reading every environment costs tens of ms on a busy
 * machine. Returns how many were signalled. Limits: a process that replaced its environment
 * before exec'ing, or that runs as another user, is not found.
 */
export function reapTagged(match: { tag: string } | { orphansOf: (pid: number) => boolean }, since?: number): number {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return 0;
  }
  if (since !== undefined) {
    const last = lastPid();
    if (last !== undefined && last >= since) pids = pids.filter((p) => Number(p) >= since && Number(p) <= last);
  }
  const prefix = `${TAG_VAR}=`;
  let killed = 0;
  for (const p of pids) {
    const pid = Number(p);
    if (pid === process.pid) continue;
    const environ = readEnviron(p);
    if (environ === undefined) continue;
    const at = environ.indexOf(prefix);
    if (at < 0 || (at > 0 && environ[at - 1] !== '\0')) continue;
    const value = environ.slice(at + prefix.length, at + prefix.length + 16);
    const hit =
      'tag' in match
        ? value === match.tag
        : /^[0-9a-f]{16}$/.test(value) && match.orphansOf(parseInt(value.slice(0, 8), 16));
    if (!hit) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed++;
    } catch {
      // Gone already, or not ours.
    }
  }
  return killed;
}

/**
 * A process's initial environment, or undefined when it is gone. A process in the middle of
 * execve shows an empty environment for a moment (the new image's is not set up yet); a busy
 * machine can stretch that moment, and a child caught in it would escape the sweep. So an empty
 * environment of a live, non-zombie process is read again, a few times, 2 ms apart.
 */
function readEnviron(pid: string): string | undefined {
  for (let attempt = 0; ; attempt++) {
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      return undefined;
    }
    if (environ !== '' || attempt >= 25) return environ;
    let stat: string[];
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      stat = text.slice(text.lastIndexOf(')') + 2).split(' ');
    } catch {
      return undefined;
    }
    // Zombies and kernel threads (flag PF_KTHREAD) have no environment for good.
    if (stat[0] === 'Z' || stat[0] === 'X' || (Number(stat[6]) & 0x200000) !== 0) return environ;
    Atomics.wait(PAUSE, 0, 0, 2);
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** The pid the kernel allocated last (undefined when /proc does not say). */
function lastPid(): number | undefined {
  try {
    const n = Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8').trim());
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** Kills leftovers of Kiln processes that were killed themselves (their tags name a dead pid). */
export function reapOrphans(): number {
  return reapTagged({
    orphansOf: (pid) => {
      try {
        process.kill(pid, 0);
        return false;
      } catch (e) {
        return (e as NodeJS.ErrnoException).code !== 'EPERM';
      }
    },
  });
}
