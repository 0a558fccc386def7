// Compilers of a sid root (npm run setup -- --profile latest), end to end on a small root the
// test assembles itself: the host's /usr bound into an empty folder, inside a private mount
// namespace of the test's own, stands in for the 5 GB root debootstrap builds. Its launcher is
// the one setup writes (scripts/roots.mjs), so what is tested is the real launcher: the compile
// runs inside the root on the campaign's folder, links statically, leaves no mount behind, and
// `kiln compilers`, `kiln fuzz` and the errors for a broken root behave as docs/latest.md says.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Compiler } from '../../src/harness/compilers.js';
import { profdataTool } from '../../src/harness/profile.js';
import { launcherOrigin, rootProblem } from '../../src/harness/roots.js';
import { kilnArgs, ROOT } from './support/cli.js';
// @ts-expect-error: a plain .mjs module of the set-up scripts, without type declarations
import { launcherText, writeLaunchers } from '../../scripts/roots.mjs';

interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * A PATH of one folder, `dir`: links to every command of this PATH's folders but the host's C
 * compilers (gcc, gcc-N, clang-N, tcc, pcc, cc, cross <triplet>-gcc-N), so that `kiln compilers`
 * detects the root's compilers alone: the host's dozen each cost a version, target and profile
 * probe, half a minute of CPU per listing, and none of them is what the listing is checked for.
 */
function pathWithoutCompilers(dir: string): string {
  mkdirSync(dir);
  const linked = new Set<string>();
  for (const from of (process.env.PATH ?? '').split(':')) {
    let names: string[];
    try {
      names = readdirSync(from);
    } catch {
      continue;
    }
    for (const name of names) {
      if (/(^|-)(gcc|clang|tcc|pcc|cc)(-[\d.]+)?$/.test(name) || linked.has(name)) continue; // first on PATH wins
      linked.add(name);
      symlinkSync(join(from, name), join(dir, name));
    }
  }
  return dir;
}

describe('compilers of a sid root, through their launchers', () => {
  let work: string;
  let root: string;
  let cache: string;

  /** Runs argv with the fake root's /usr bound, in a mount namespace that ends with the command. */
  const inNamespace = (argv: readonly string[], cwd = work, env: Record<string, string> = {}): Ran => {
    const r = spawnSync(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        '--',
        '/bin/sh',
        '-c',
        'mount --bind /usr "$0/usr" && exec "$@"',
        root,
        ...argv,
      ],
      {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, KILN_CACHE_DIR: cache, ...env },
        timeout: 600_000,
      },
    );
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const kiln = (args: readonly string[], env: Record<string, string> = {}): Ran =>
    inNamespace([process.execPath, ...kilnArgs(), ...args], ROOT, env);

  beforeAll(() => {
    if (process.getuid?.() !== 0)
      throw new Error('this test needs root (chroot and mount namespaces), as .ci/run has: run it as root');
    work = mkdtempSync(join(tmpdir(), 'kiln-roots-'));
    root = join(work, 'root');
    cache = join(work, 'cache');
    for (const d of ['usr', 'tmp', 'proc', 'dev', 'etc']) mkdirSync(join(root, d), { recursive: true });
    for (const d of ['bin', 'lib', 'lib64', 'sbin']) symlinkSync(`usr/${d}`, join(root, d));
    writeFileSync(join(root, '.kiln-root.json'), JSON.stringify({ suite: 'sid', packages: {} }));
    // The host's gcc-12 plays GCC trunk: the name is the one setup gives the snapshot's launcher.
    writeLaunchers(root, join(cache, 'bin'), [
      { name: 'gcc-snapshot', command: '/usr/bin/gcc-12' },
      { name: 'clang-22', command: '/usr/bin/clang-99' },
      // A tool: the host's llvm-profdata-14 plays the root's llvm-profdata of a clang 14.
      { name: 'llvm-profdata-14', command: '/usr/bin/llvm-profdata-14', tool: true },
    ]);
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('compiles in the root on the files of the current folder, links statically and leaves no mount', () => {
    const dir = join(work, 'hello');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.c'), '#include <stdio.h>\nint main(void) { puts("hello from the root"); return 0; }\n');
    const r = inNamespace([join(cache, 'bin', 'gcc-snapshot'), '-O2', 'a.c', '-o', 'a'], dir);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // Runs on the host, with no program interpreter: a static binary.
    expect(spawnSync(join(dir, 'a'), { encoding: 'utf8' }).stdout).toBe('hello from the root\n');
    expect(spawnSync('readelf', ['-l', join(dir, 'a')], { encoding: 'utf8' }).stdout).not.toMatch(/INTERP/);
    // A compile-only command gets no -static (clang would warn that it is unused).
    const c = inNamespace(
      [join(cache, 'bin', 'gcc-snapshot'), '-c', 'a.c', '-o', 'a.o', '-Wall', '-Wextra', '-Werror'],
      dir,
    );
    expect(c.status).toBe(0);
    // A sanitizer build cannot be static; gcc is told to link its runtimes into the binary.
    writeFileSync(join(dir, 'oob.c'), 'int main(void) { int a[2] = {0}; volatile int i = 2; return a[i]; }\n');
    const san = inNamespace(
      [join(cache, 'bin', 'gcc-snapshot'), '-O0', '-fsanitize=address,undefined', 'oob.c', '-o', 'oob'],
      dir,
    );
    expect(san.status, san.stderr).toBe(0);
    expect(spawnSync('readelf', ['-d', join(dir, 'oob')], { encoding: 'utf8' }).stdout).not.toMatch(
      /NEEDED.*lib(asan|ubsan)/,
    );
    expect(spawnSync(join(dir, 'oob'), { encoding: 'utf8' }).stderr).toMatch(/AddressSanitizer: stack-buffer-overflow/);
    expect(readFileSync('/proc/self/mounts', 'utf8')).not.toContain(root);
    // A folder outside /tmp is bound on the same path inside the root.
    expect(launcherText(root, '/usr/bin/gcc-12', 'gcc-snapshot')).toContain('mount --bind "$here" "$root$here"');
  });

  it("runs a root clang's llvm-profdata through its launcher, found when PATH has none", () => {
    const clang14 = { name: 'clang-14', version: 'Debian clang version 14.0.6' } as Compiler;
    const tool = profdataTool(clang14, { PATH: join(work, 'no-such-folder'), KILN_CACHE_DIR: cache });
    expect(tool).toBe(join(cache, 'bin', 'llvm-profdata-14'));
    // Its arguments pass as they are: a compiler's launcher would add -static to this command.
    const text = readFileSync(tool!, 'utf8');
    expect(text).toContain("cc='/usr/bin/llvm-profdata-14'");
    expect(text).toContain('static=-static; link=1; san=\nstatic=; link=\n');
    expect(readFileSync(join(cache, 'bin', 'gcc-snapshot'), 'utf8')).not.toContain('static=; link=\nfor');
    const r = inNamespace([tool!, 'merge', '--help']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/USAGE: llvm-profdata.* merge/);
    // A clang whose llvm-profdata is in neither place has none.
    expect(profdataTool({ ...clang14, version: 'clang version 98.0.0' }, { PATH: '', KILN_CACHE_DIR: cache })).toBe(
      undefined,
    );
  });

  it('lists the root compiler with its origin, and runs a campaign on it by name', () => {
    // Detected as a user's listing detects it, only with the host's compilers out of sight.
    const env = { PATH: pathWithoutCompilers(join(work, 'path')) };
    const list = kiln(['compilers', '--json'], env);
    expect(list.status).toBe(0);
    const compilers = JSON.parse(list.stdout) as {
      name: string;
      family: string;
      root?: { path: string; command: string };
    }[];
    const snap = compilers.find((c) => c.name === 'gcc-snapshot');
    expect(snap).toMatchObject({ family: 'gcc', root: { path: root, command: '/usr/bin/gcc-12' } });
    // clang-22's command is missing from the root: left out, and said why.
    expect(compilers.some((c) => c.name === 'clang-22')).toBe(false);
    // Nothing but the root's gcc: the host's compilers were out of sight indeed.
    expect(compilers.map((c) => c.name)).toEqual(['gcc-snapshot']);
    const text = kiln(['compilers'], env);
    expect(text.stdout).toMatch(/from the sid root .* \(\/usr\/bin\/gcc-12\), linked statically/);
    expect(text.stderr).toMatch(/clang-22 left out: error\[KILN_UNKNOWN_COMPILER\].*missing from the root/);

    const out = join(work, 'campaign');
    const fuzz = kiln([
      'fuzz',
      '--compilers',
      'gcc-snapshot',
      '--opts',
      '-O0;-O2',
      '--tests',
      '3',
      '--mode',
      'csmith',
      '--size',
      'small',
      '-j',
      '1',
      '--out',
      out,
    ]);
    expect(fuzz.stderr).not.toMatch(/error\[/);
    expect(fuzz.status).toBe(0);
    const findings = kiln(['findings', '--out', out, '--json']);
    expect(JSON.parse(findings.stdout)).toEqual([]);
    expect(fuzz.stdout + fuzz.stderr).toMatch(/6 tests/);
  });

  it('refuses a compiler the root lacks, a half-built root and a name no root has, each with one coded line', () => {
    const missing = kiln(['fuzz', '--compilers', 'clang-22', '--tests', '1', '--out', join(work, 'x1')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(
      new RegExp(
        String.raw`^kiln: error\[KILN_UNKNOWN_COMPILER\]: compiler 'clang-22' is missing from the root ` +
          '.*npm run setup -- --profile latest',
        'ms',
      ),
    );
    expect(missing.stderr).not.toMatch(/\n\s+at /); // no stack trace

    const unknown = kiln(['fuzz', '--compilers', 'gcc-19', '--tests', '1', '--out', join(work, 'x2')]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(
      /KILN_UNKNOWN_COMPILER.*no sid root holds it; 'npm run setup -- --profile latest' installs it/,
    );

    unlinkSync(join(root, '.kiln-root.json'));
    try {
      const broken = kiln(['fuzz', '--compilers', 'gcc-snapshot', '--tests', '1', '--out', join(work, 'x3')]);
      expect(broken.status).toBe(2);
      expect(broken.stderr).toMatch(/error\[KILN_ROOT_BROKEN\]: the root .* is half-built/);
      const origin = launcherOrigin(join(cache, 'bin', 'gcc-snapshot'));
      expect(origin?.path).toBe(root);
      expect(rootProblem('gcc-snapshot', origin!)?.code).toBe('KILN_ROOT_BROKEN');
      // The launcher itself says what to do, for repro.sh and a user's shell.
      const direct = inNamespace([join(cache, 'bin', 'gcc-snapshot'), '--version']);
      expect(direct.status).toBe(127);
      expect(direct.stderr).toMatch(/gcc-snapshot is missing from .*npm run setup -- --profile latest/);
    } finally {
      writeFileSync(join(root, '.kiln-root.json'), JSON.stringify({ suite: 'sid', packages: {} }));
    }
    expect(existsSync(join(root, 'usr', 'bin'))).toBe(false); // the bind of /usr never outlived a namespace
  });

  it('set-up of the latest profile without root privileges says what to run, and builds nothing', () => {
    const r = spawnSync(
      'setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        process.execPath,
        join(ROOT, 'scripts', 'ensure-tools.mjs'),
        '--profile',
        'latest',
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, KILN_CACHE_DIR: join(work, 'never') },
      },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        String.raw`^ensure-tools: error\[KILN_ROOT_PRIVILEGES\]: .*\n` +
          String.raw`ensure-tools: hint: run it as root: sudo npm run setup -- --profile latest\n$`,
      ),
    );
    expect(existsSync(join(work, 'never'))).toBe(false);
  });
});
