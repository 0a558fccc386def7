// `ensure-tools.mjs --profile latest`: builds or completes the sid root of the newest compilers
// (scripts/roots.mjs has the layout and the launchers). Each step runs only when needed, so a
// second run does nothing but check; `--update` upgrades the root and keeps the versions it had.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cacheDir,
  readRootState,
  ROOT_STATE,
  rootCompilers,
  rootPackageVersions,
  rootTools,
  writeLaunchers,
} from './roots.mjs';

/**
 * What the latest profile needs: the newest GCC release, GCC trunk and the newest LLVM release the
 * suite had when this list was written, with clang's sanitizer runtime (gcc's come with it).
 */
export const LATEST_PACKAGES = ['gcc-16', 'gcc-snapshot', 'clang-22', 'libclang-rt-22-dev', 'libc6-dev'];

/**
 * LLVM trunk, a snapshot Debian's experimental suite carries (clang-24 in late 2026), with its
 * sanitizer runtimes, tools and linker. When the suite moves on to clang-25 for trunk, this list
 * moves with it; the version line orders clang by the version it prints, so trunk comes last.
 */
export const EXPERIMENTAL_PACKAGES = ['clang-24', 'libclang-rt-24-dev', 'llvm-24', 'lld-24'];

/** Cross targets with vector ISAs: the GNU triplet and the Debian architecture of their C library. */
export const CROSS_VECTOR_TARGETS = [
  { triplet: 'aarch64-linux-gnu', libc: 'arm64' },
  { triplet: 'riscv64-linux-gnu', libc: 'riscv64' },
  { triplet: 'loongarch64-linux-gnu', libc: 'loong64' },
  { triplet: 'powerpc64le-linux-gnu', libc: 'ppc64el' },
  { triplet: 's390x-linux-gnu', libc: 's390x' },
];

/**
 * Installed when the suite has them: the rest of each compiler's version line (the suite drops
 * and adds versions as they age: in late 2026 it had clang-19, 21, 22 and 23 but no clang-20),
 * each LLVM's tools (llvm-profdata-N),
 * and every alpha cross gcc, for the version line of alpha findings.
 */
// biome-ignore format: data table
export const LATEST_OPTIONAL = [
  'gcc-13', 'gcc-14', 'gcc-15',
  'clang-19', 'clang-20', 'clang-21', 'clang-23',
  'libclang-rt-19-dev', 'libclang-rt-20-dev', 'libclang-rt-21-dev', 'libclang-rt-23-dev',
  // llvm-profdata-N, for profile-guided builds with clang-N (docs/profiles.md).
  'llvm-19', 'llvm-20', 'llvm-21', 'llvm-22', 'llvm-23',
  // lld-N: clang-N's -flto configurations link with it (src/harness/matrix.ts, withImplicitOptions).
  'lld-19', 'lld-20', 'lld-21', 'lld-22', 'lld-23',
  // LLVM trunk: Debian's experimental suite only (pinned, see EXPERIMENTAL_PIN).
  ...EXPERIMENTAL_PACKAGES,
  'gcc-13-alpha-linux-gnu', 'gcc-14-alpha-linux-gnu', 'gcc-15-alpha-linux-gnu', 'gcc-16-alpha-linux-gnu',
  // The newest cross back ends with vector ISAs (docs/cross.md), each with its version line, their C
  // libraries, and the qemu-user that runs RVV 1.0, SVE2, LASX and POWER10 code (Debian 12's does not).
  ...CROSS_VECTOR_TARGETS.flatMap((t) => [13, 14, 15, 16].map((v) => `gcc-${v}-${t.triplet}`)),
  ...CROSS_VECTOR_TARGETS.map((t) => `libc6-dev-${t.libc}-cross`),
  'qemu-user',
  // gcc-16 of the older cross targets Kiln models, for their version lines.
  'gcc-16-m68k-linux-gnu', 'gcc-16-hppa-linux-gnu', 'gcc-16-mips-linux-gnu', 'gcc-16-powerpc-linux-gnu',
  // Only recommended by the cross gccs (and recommendations are not installed): without it they cannot link.
  'libc6.1-dev-alpha-cross',
];

const SUITE = 'sid';

/**
 * The root's apt preferences for experimental: every package of that suite stays at priority 1 (apt
 * never picks it on its own), and only LLVM trunk's own packages (the names of LLVM 24's clang,
 * llvm, lld and their libraries) get 500, so they install and `--update` upgrades them to a newer
 * snapshot, while everything else, their dependencies included, comes from sid.
 */
const EXPERIMENTAL_PIN = `// Written by Kiln (scripts/latest.mjs): only LLVM trunk comes from experimental.
Package: *
Pin: release a=experimental
Pin-Priority: 1

Package: /^(lib)?(clang|llvm|lld)[a-z0-9+.-]*24([^0-9]|$)/
Pin: release a=experimental
Pin-Priority: 500
`;

function fail(code, message, hint) {
  console.error(`ensure-tools: error[${code}]: ${message}`);
  if (hint) console.error(`ensure-tools: hint: ${hint}`);
  process.exit(1);
}

function sh(cmd, args, what, opts = {}) {
  const r = spawnSync(cmd, args, {
    stdio: opts.capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', LC_ALL: 'C' },
  });
  if (r.status !== 0 && !opts.allowFail)
    fail(
      'KILN_ROOT_SETUP',
      `${what} failed (${cmd} ${args.slice(0, 6).join(' ')} … exit ${r.status ?? r.signal})`,
      'fix the message above and run the same command again; the steps already done are kept',
    );
  return r;
}

/** Runs a command inside the root, with /proc mounted in a private mount namespace (apt and dpkg need it). */
function inRoot(root, argv, what, opts = {}) {
  return sh(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      '--',
      '/bin/sh',
      '-c',
      'mount -t proc proc "$1/proc" && exec chroot "$@"',
      'kiln-root',
      root,
      ...argv,
    ],
    what,
    opts,
  );
}

/** The mirror the host's apt uses for Debian (so the root comes from the same archive), if one is configured. */
function hostMirror() {
  const texts = [];
  for (const f of ['/etc/apt/sources.list']) if (existsSync(f)) texts.push(readFileSync(f, 'utf8'));
  try {
    for (const f of readdirSync('/etc/apt/sources.list.d'))
      if (/\.(list|sources)$/.test(f)) texts.push(readFileSync(join('/etc/apt/sources.list.d', f), 'utf8'));
  } catch {
    // no folder: the default mirror
  }
  for (const t of texts) {
    const m = /(?:URIs:\s*|^deb\s+(?:\[[^\]]*\]\s+)?)(https?:\/\/\S+\/debian)\/?\s/m.exec(`${t}\n`);
    if (m) return m[1];
  }
  return undefined;
}

/** Mount points inside the root: a half-built root must not be removed through one. */
function mountsUnder(root) {
  try {
    return readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' ')[1] ?? '')
      .filter((m) => m === root || m.startsWith(`${root}/`));
  } catch {
    return [];
  }
}

function du(path) {
  const r = spawnSync('du', ['-sh', '--one-file-system', path], { encoding: 'utf8' });
  return (r.stdout ?? '').split('\t')[0] || '?';
}

/** Packages the root's apt knows (after `apt-get update`). */
function available(root, packages) {
  const r = inRoot(root, ['apt-cache', 'policy', ...packages], 'apt-cache policy', { capture: true, allowFail: true });
  const have = new Set();
  let current;
  for (const line of (r.stdout ?? '').split('\n')) {
    const name = /^(\S+):$/.exec(line);
    if (name) current = name[1];
    else if (current && /Candidate:\s*(?!\(none\))\S+/.test(line)) have.add(current);
  }
  return packages.filter((p) => have.has(p));
}

/** Builds or completes the root; prints what it did, how long it took and the disk it uses. */
export function ensureLatestRoot({ update = false } = {}) {
  const started = Date.now();
  const cache = cacheDir();
  const root = join(cache, 'roots', SUITE);
  const bin = join(cache, 'bin');
  const done = [];
  let state = readRootState(root);
  if (!state && existsSync(root) && readdirSync(root).length > 0) {
    const mounts = mountsUnder(root);
    if (mounts.length)
      fail(
        'KILN_ROOT_BROKEN',
        `the half-built root ${root} has mounts inside it (${mounts.join(', ')})`,
        `unmount them (umount -R ${mounts[0]}) and run the setup again`,
      );
    const aside = `${root}.broken-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    console.log(`ensure-tools: ${root} is half-built (no ${ROOT_STATE}); moving it to ${aside} and starting again`);
    renameSync(root, aside);
    sh('rm', ['-rf', '--one-file-system', aside], 'removing the half-built root');
    done.push('removed a half-built root');
  }
  if (!state) {
    mkdirSync(join(cache, 'roots'), { recursive: true });
    const mirror = hostMirror();
    console.log(
      `ensure-tools: building a ${SUITE} root at ${root} with debootstrap ` +
        `(minbase${mirror ? `, from ${mirror}` : ''}); this downloads about 150 MB`,
    );
    const t = Date.now();
    sh(
      'debootstrap',
      [
        '--variant=minbase',
        '--keyring=/usr/share/keyrings/debian-archive-keyring.gpg',
        SUITE,
        root,
        ...(mirror ? [mirror] : []),
      ],
      'debootstrap',
    );
    done.push(`built the root with debootstrap in ${Math.round((Date.now() - t) / 1000)} s`);
    state = { suite: SUITE, built: new Date().toISOString(), packages: {}, history: [] };
    // Written now: an interrupted install below is completed by the next run, not rebuilt.
    writeFileSync(join(root, ROOT_STATE), `${JSON.stringify(state, null, 2)}\n`);
  }
  // Name resolution inside the root for apt.
  if (existsSync('/etc/resolv.conf')) {
    try {
      copyFileSync('/etc/resolv.conf', join(root, 'etc/resolv.conf'));
    } catch {
      // a read-only or symlinked resolv.conf in the root: apt may still reach the archive
    }
  }
  // sid's Release file carries a Valid-Until date a week or so ahead, and apt refuses an archive
  // past it. A mirror that is a dated snapshot (or a clock ahead of the archive) is past it for
  // good, and the root could never be completed: the date check is off in the root's apt only.
  const aptConf = join(root, 'etc/apt/apt.conf.d/99kiln-valid-until');
  if (!existsSync(aptConf))
    writeFileSync(
      aptConf,
      '// Written by Kiln (scripts/latest.mjs): accept a Release file past its Valid-Until date.\n' +
        'Acquire::Check-Valid-Until "false";\n',
    );
  // Experimental's index, pinned so that only LLVM trunk comes from it.
  const expList = join(root, 'etc/apt/sources.list.d/kiln-experimental.list');
  const expPin = join(root, 'etc/apt/preferences.d/kiln-experimental');
  if (!existsSync(expPin) || readFileSync(expPin, 'utf8') !== EXPERIMENTAL_PIN) {
    mkdirSync(join(root, 'etc/apt/preferences.d'), { recursive: true });
    writeFileSync(expPin, EXPERIMENTAL_PIN);
  }
  if (!existsSync(expList)) {
    const main = readFileSync(join(root, 'etc/apt/sources.list'), 'utf8');
    const mirror = /^deb\s+(\S+)\s+sid\b/m.exec(main)?.[1] ?? 'http://deb.debian.org/debian';
    writeFileSync(
      expList,
      '# Written by Kiln (scripts/latest.mjs): LLVM trunk, pinned in preferences.d/kiln-experimental.\n' +
        `deb ${mirror} experimental main\n`,
    );
    state.unavailable = (state.unavailable ?? []).filter((p) => !EXPERIMENTAL_PACKAGES.includes(p));
  }
  const wanted = [...LATEST_PACKAGES, ...LATEST_OPTIONAL];
  let have = rootPackageVersions(root, wanted);
  let missing = LATEST_PACKAGES.filter((p) => !(p in have));
  let updated = false;
  if (
    update ||
    missing.length > 0 ||
    LATEST_OPTIONAL.some((p) => !(p in have) && !(state.unavailable ?? []).includes(p))
  ) {
    inRoot(root, ['apt-get', 'update'], 'apt-get update in the root');
    updated = true;
  }
  if (update) {
    const before = rootPackageVersions(root, wanted);
    state.history = [...(state.history ?? []), { until: new Date().toISOString(), packages: before }];
    inRoot(root, ['apt-get', 'dist-upgrade', '-y', '--no-install-recommends'], 'upgrading the root');
    done.push('upgraded the root (the versions it had are kept in its history)');
  }
  if (updated) {
    const optional = LATEST_OPTIONAL.filter((p) => !(p in have));
    const can = available(root, optional);
    state.unavailable = optional.filter((p) => !can.includes(p));
    const toInstall = [...missing, ...can];
    if (toInstall.length) {
      const t = Date.now();
      console.log(`ensure-tools: installing into the root: ${toInstall.join(' ')}`);
      inRoot(
        root,
        ['apt-get', 'install', '-y', '--no-install-recommends', ...toInstall],
        'apt-get install in the root',
      );
      inRoot(root, ['apt-get', 'clean'], 'apt-get clean in the root', { allowFail: true });
      done.push(`installed ${toInstall.length} packages in ${Math.round((Date.now() - t) / 1000)} s`);
    }
    have = rootPackageVersions(root, wanted);
    missing = LATEST_PACKAGES.filter((p) => !(p in have));
    if (missing.length)
      fail(
        'KILN_ROOT_SETUP',
        `still missing in the root after the install: ${missing.join(' ')}`,
        `the suite may have dropped them; check 'chroot ${root} apt-cache policy ${missing[0]}'`,
      );
  }
  const compilers = rootCompilers(root);
  const names = writeLaunchers(root, bin, compilers);
  const written = names.written + writeLaunchers(root, bin, rootTools(root)).written;
  if (written > 0) done.push(`wrote ${written} launcher${written === 1 ? '' : 's'} in ${bin}`);
  const versionsChanged = JSON.stringify(have) !== JSON.stringify(state.packages);
  if (versionsChanged || done.length) {
    state = { ...state, updated: new Date().toISOString(), packages: have, compilers };
    writeFileSync(join(root, ROOT_STATE), `${JSON.stringify(state, null, 2)}\n`);
  }
  const secs = Math.round((Date.now() - started) / 1000);
  if (done.length === 0) {
    console.log(
      `ensure-tools: the ${SUITE} root at ${root} is complete; nothing to do (${compilers.length} ` +
        `compilers: ${names.join(' ')})`,
    );
    return;
  }
  console.log(`ensure-tools: ${done.join('; ')}`);
  console.log(
    `ensure-tools: the ${SUITE} root at ${root} holds ${compilers.length} compilers ` +
      `(${names.join(' ')}); ${du(root)} on disk; ${secs} s in all`,
  );
  console.log(
    `ensure-tools: launchers in ${bin}; 'kiln compilers' lists them, 'kiln fuzz --compilers ` +
      `gcc-snapshot,clang-22' tests them`,
  );
}
