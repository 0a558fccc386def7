// Compilers that live in a root of Debian's development suite (sid), built by
// `npm run setup -- --profile latest` (scripts/latest.mjs), and run through one launcher each
// (scripts/roots.mjs writes them; the comment at its top says what a launcher does). Kiln finds
// the launchers in its cache folder, after PATH, and drives them like any compiler: the launcher
// links statically, so the binaries run on the host.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KilnError } from '../diag/errors.js';

/** The header line of a launcher (scripts/roots.mjs, LAUNCHER_MARK). */
const LAUNCHER_MARK = '# kiln-root-launcher';

/** The file written into a root once debootstrap has finished (scripts/roots.mjs, ROOT_STATE). */
const ROOT_STATE = '.kiln-root.json';

/** The set-up command that builds or completes the root (every hint names it). */
export const LATEST_SETUP = 'npm run setup -- --profile latest';

/** Where a compiler of a root comes from. */
export interface RootOrigin {
  /** The root folder on the host. */
  readonly path: string;
  /** The compiler's command inside the root (`/usr/bin/gcc-16`, `/usr/lib/gcc-snapshot/bin/gcc`). */
  readonly command: string;
  /** The suite the root was built from (`sid`). */
  readonly suite: string;
}

/** Kiln's cache folder: KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln (as scripts/roots.mjs). */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KILN_CACHE_DIR) return env.KILN_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'kiln');
}

/** The folder of the root compilers' launchers. */
export function launcherDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), 'bin');
}

/** The root a launcher runs its compiler in, or undefined when `path` is not a launcher. */
export function launcherOrigin(path: string): RootOrigin | undefined {
  let head: string;
  try {
    if (statSync(path).size > 64 << 10) return undefined;
    head = readFileSync(path, 'utf8').slice(0, 2048);
  } catch {
    return undefined;
  }
  const lines = head.split('\n');
  if (lines[1] !== LAUNCHER_MARK) return undefined;
  const root = /^# root=(.+)$/m.exec(head)?.[1];
  const command = /^# command=(.+)$/m.exec(head)?.[1];
  if (!root || !command) return undefined;
  let suite = 'sid';
  try {
    const state = JSON.parse(readFileSync(join(root, ROOT_STATE), 'utf8')) as { suite?: unknown };
    if (typeof state.suite === 'string') suite = state.suite;
  } catch {
    // reported by checkRootCompiler
  }
  return { path: root, command, suite };
}

/**
 * Why a root compiler cannot run here, as a coded error, or undefined when it can: the root is
 * half-built or gone, the compiler is missing from it, or this process may not chroot.
 */
export function rootProblem(
  name: string,
  origin: RootOrigin,
  uid: number | undefined = process.getuid?.(),
): KilnError | undefined {
  if (!existsSync(origin.path)) {
    return new KilnError(
      'KILN_ROOT_BROKEN',
      `compiler '${name}' runs in the root ${origin.path}, which does not exist`,
      `build it with '${LATEST_SETUP}'`,
    );
  }
  if (!existsSync(join(origin.path, ROOT_STATE))) {
    return new KilnError(
      'KILN_ROOT_BROKEN',
      `the root ${origin.path} of compiler '${name}' is half-built (debootstrap did not finish)`,
      `run '${LATEST_SETUP}' again: it rebuilds a half-built root`,
    );
  }
  if (!existsSync(join(origin.path, origin.command))) {
    return new KilnError(
      'KILN_UNKNOWN_COMPILER',
      `compiler '${name}' is missing from the root ${origin.path} (no ${origin.command})`,
      `run '${LATEST_SETUP}': it installs what is missing`,
    );
  }
  if (uid !== undefined && uid !== 0 && !userNamespacesAllowed()) {
    return new KilnError(
      'KILN_ROOT_PRIVILEGES',
      `compiler '${name}' runs in a chroot, which needs root privileges here (unprivileged user namespaces are off)`,
      'run Kiln as root, or use a compiler installed on the host',
    );
  }
  return undefined;
}

function userNamespacesAllowed(): boolean {
  try {
    return readFileSync('/proc/sys/kernel/unprivileged_userns_clone', 'utf8').trim() !== '0';
  } catch {
    return true; // the kernel has no such switch: user namespaces are allowed
  }
}

/** Names the latest profile installs: a hint for a name that is neither on PATH nor in a root. */
export function isLatestProfileName(name: string): boolean {
  const m = /^(gcc|clang)-(\d+)$/.exec(name);
  if (name === 'gcc-snapshot') return true;
  if (!m) return false;
  return m[1] === 'gcc' ? Number(m[2]) >= 14 : Number(m[2]) >= 19;
}

/** Launchers whose compiler cannot run here, each with the reason (for `kiln compilers`). */
export function unusableRootCompilers(
  env: NodeJS.ProcessEnv = process.env,
): { readonly name: string; readonly problem: KilnError }[] {
  const dir = launcherDir(env);
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: { name: string; problem: KilnError }[] = [];
  for (const name of names) {
    const origin = launcherOrigin(join(dir, name));
    const problem = origin && rootProblem(name, origin);
    if (problem) out.push({ name, problem });
  }
  return out;
}
