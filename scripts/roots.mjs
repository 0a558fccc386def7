// Roots of Debian's development suite (sid) that hold the newest compilers, and the launchers that
// run those compilers as if they were installed on the host. Used by `ensure-tools.mjs --profile
// latest`, and by Kiln's tests (with a small root they assemble themselves).
//
// Layout, under Kiln's cache folder (KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln):
//   roots/sid/                 the root, built by debootstrap (variant minbase)
//   roots/sid/.kiln-root.json  written last: a root without it is half-built (see ROOT_STATE)
//   bin/<name>                 one launcher per compiler (gcc-16, gcc-snapshot, clang-22, …)
//
// A launcher runs its compiler inside the root, in a private mount namespace of its own (the
// mounts vanish with the process, so nothing is left mounted when a compiler is killed):
//   - the host's /tmp is bind-mounted on the root's /tmp, and the working folder on the same path
//     in the root when it is elsewhere, so relative and absolute paths name the same files;
//   - /proc is mounted, and /dev bound when the root has no device nodes of its own;
//   - every link is static (`-static` is added unless the command only compiles, preprocesses,
//     asks for versions or builds with a sanitizer), so the binary runs on the host exactly as a
//     host compiler's does, with no library of the root. A sanitizer build cannot be static:
//     clang links its runtimes into the binary anyway, and gcc is told to (-static-libasan,
//     -static-libubsan), so the binary needs only the host's C library.
// The launcher is one exec chain (unshare → sh → chroot → sh → compiler): the campaign's
// `timeout`, memory limit and process-group kill reach the compiler itself.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The file that marks a finished root (its absence marks a half-built one). */
export const ROOT_STATE = '.kiln-root.json';

/** The header line that marks a file as a Kiln launcher, followed by `root=` and `command=` lines. */
export const LAUNCHER_MARK = '# kiln-root-launcher';

/** Kiln's cache folder. */
export function cacheDir(env = process.env) {
  if (env.KILN_CACHE_DIR) return env.KILN_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'kiln');
}

/**
 * The compilers of the `latest` profile, as launcher name → command inside the root, for every
 * package the root has. `gcc-snapshot` (GCC trunk) installs under /usr/lib/gcc-snapshot only.
 */
export function rootCompilers(root) {
  const out = [];
  const add = (name, command) => {
    if (existsSync(join(root, command))) out.push({ name, command });
  };
  for (let v = 13; v <= 20; v++) add(`gcc-${v}`, `/usr/bin/gcc-${v}`);
  add('gcc-snapshot', '/usr/lib/gcc-snapshot/bin/gcc');
  for (let v = 19; v <= 30; v++) add(`clang-${v}`, `/usr/bin/clang-${v}`);
  // Cross compilers of targets Kiln models, for the version line of cross findings.
  let names = [];
  try {
    names = readdirSync(join(root, 'usr/bin'));
  } catch {
    names = [];
  }
  for (const n of names.sort())
    if (/^[a-z0-9_]+-linux-gnu[a-z]*-gcc-\d+$/.test(n) && !/^x86_64-/.test(n)) add(n, `/usr/bin/${n}`);
  return out;
}

/**
 * The tools of the root that Kiln runs beside its compilers, as launcher name → command, for each
 * LLVM version: llvm-profdata, which merges (and writes as text) the raw profiles of the clang of
 * that version (profile-guided configurations, docs/profiles.md); opt, llc and llvm-reduce, which
 * make a clang crash's LLVM reproducer (reduced.ll and its one `opt -passes=…` or `llc` line,
 * docs/reduce.md). They run inside the root like the compilers, with nothing added to their arguments.
 */
export function rootTools(root) {
  const out = [];
  for (let v = 19; v <= 30; v++)
    for (const tool of ['llvm-profdata', 'opt', 'llc', 'llvm-reduce']) {
      const command = `/usr/bin/${tool}-${v}`;
      if (existsSync(join(root, command))) out.push({ name: `${tool}-${v}`, command, tool: true });
    }
  return out;
}

/**
 * The text of one launcher: a self-contained sh script (see the top of this file). A tool's
 * launcher (`tool`) passes its arguments as they are: no -static, no sanitizer runtimes.
 */
export function launcherText(root, command, name, tool = false) {
  const gcc = !tool && /(^|\/|-)gcc(-[0-9]+)?$/.test(command);
  const q = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
  // biome-ignore format: embedded text
  return `#!/bin/sh
${LAUNCHER_MARK}
# root=${root}
# command=${command}
# Runs ${name} (${command}) inside the Debian root above, on the files of the current folder,
# linking statically so that its binaries run on this machine. Written by Kiln's
# 'npm run setup -- --profile latest'; needs root privileges (chroot, a private mount namespace).
root=${q(root)}
cc=${q(command)}
if [ ! -f "$root/${ROOT_STATE}" ] || [ ! -x "$root$cc" ]; then
  echo "kiln-launcher: ${name} is missing from $root (run: npm run setup -- --profile latest)" >&2
  exit 127
fi
static=-static; link=1; san=
${tool ? 'static=; link=\n' : ''}for a in "$@"; do
  case $a in
    -c|-S|-E|-M|-MM|-fsyntax-only|--version|-v|-dumpmachine|-dumpversion|-dumpfullversion|-print-*|-shared|'-###') static=; link= ;;
    -fsanitize=*) static= ;;
  esac${
    gcc
      ? `
  # gcc links its sanitizer runtimes as shared libraries, which the host has only in its own
  # (older) versions: the root's are linked into the binary instead.
  case $a in -fsanitize=*address*) san="$san -static-libasan" ;; esac
  case $a in -fsanitize=*undefined*) san="$san -static-libubsan" ;; esac`
      : ''
  }
done
[ -n "$link" ] || san=
if [ "$(id -u)" = 0 ]; then ns=; else ns=--map-root-user; fi
exec unshare $ns --mount --propagation private -- /bin/sh -c '
  root=$1; cc=$2; shift 2
  here=$(pwd -P) || exit 127
  mount --bind /tmp "$root/tmp" || exit 127
  mount -t proc proc "$root/proc" 2>/dev/null
  [ -c "$root/dev/null" ] || mount --rbind /dev "$root/dev" || exit 127
  case $here in
    /tmp|/tmp/*) ;;
    *) mkdir -p "$root$here" && mount --bind "$here" "$root$here" || exit 127 ;;
  esac
  exec chroot "$root" /bin/sh -c '"'"'cd "$1" || exit 127; shift; exec "$@"'"'"' kiln-launch "$here" "$cc" "$@"
' kiln-launch "$root" "$cc" $static $san "$@"
`;
}

/**
 * Writes one launcher per compiler of the root into `binDir` (only those that differ); returns their names and how many
 * were written.
 */
export function writeLaunchers(root, binDir, compilers = rootCompilers(root)) {
  mkdirSync(binDir, { recursive: true });
  let written = 0;
  for (const c of compilers) {
    const p = join(binDir, c.name);
    const text = launcherText(root, c.command, c.name, c.tool === true);
    let old;
    try {
      old = readFileSync(p, 'utf8');
    } catch {
      old = undefined;
    }
    if (old === text) continue;
    writeFileSync(p, text);
    chmodSync(p, 0o755);
    written++;
  }
  return Object.assign(
    compilers.map((c) => c.name),
    { written },
  );
}

/** The state file of a root, or undefined when the root is missing or half-built. */
export function readRootState(root) {
  try {
    return JSON.parse(readFileSync(join(root, ROOT_STATE), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Versions of the named packages installed in a root (`dpkg-query` inside it), name → version. */
export function rootPackageVersions(root, packages) {
  const r = spawnSync('chroot', [root, 'dpkg-query', '-W', '-f=${Package} ${Status} ${Version}\\n', ...packages], {
    encoding: 'utf8',
  });
  const out = {};
  for (const line of (r.stdout ?? '').split('\n')) {
    const m = /^(\S+) install ok installed (\S+)$/.exec(line.trim());
    if (m) out[m[1]] = m[2];
  }
  return out;
}
