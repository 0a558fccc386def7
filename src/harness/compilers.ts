import { accessSync, constants, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';
import { LP64, TARGETS, type TargetModel } from '../c/target.js';
import { errUnknownCompiler } from '../diag/errors.js';
import { runProcess, SpawnError } from './process.js';
import {
  isLatestProfileName,
  LATEST_SETUP,
  launcherDir,
  launcherOrigin,
  rootProblem,
  type RootOrigin,
} from './roots.js';

/** Compiler families Kiln knows how to drive (they differ in version flag and crash text only). */
export type CompilerFamily = 'gcc' | 'clang' | 'tcc' | 'pcc' | 'cc';

/** One C compiler driver, as detected or named by the user. */
export interface Compiler {
  /** Display name, unique within a campaign (`gcc`, `clang-15`, `fake-cc`). */
  readonly name: string;
  /** Absolute path of the command as found; argv[0] is kept (clang-14 behaves as clang-14). */
  readonly command: string;
  /** The binary behind symlinks: two names with one real path are one compiler. */
  readonly realPath: string;
  readonly family: CompilerFamily;
  /** First line of `--version` (`-v` for tcc), e.g. `gcc (Debian 12.2.0-14) 12.2.0`. */
  readonly version: string;
  /** Name of the target model its binaries are for (`m68k`); absent means the host (x86_64). */
  readonly target?: string;
  /**
   * How its binaries are started when they do not run natively: the emulator's argv before
   * `./prog` (`qemu-m68k -L /usr/m68k-linux-gnu`). Absent for native compilers, and for a cross
   * compiler whose emulator is not on PATH (see {@link missingEmulator}).
   */
  readonly emulator?: readonly string[];
  /**
   * Set for a compiler of a sid root (`npm run setup -- --profile latest`): `command` is then a
   * launcher that runs it inside the root and links statically (src/harness/roots.ts).
   */
  readonly root?: RootOrigin;
}

/** The emulator a cross compiler needs but PATH lacks (`qemu-m68k`), or undefined. */
export function missingEmulator(c: Compiler): string | undefined {
  const model = c.target === undefined ? undefined : TARGETS.find((t) => t.name === c.target);
  return model && model !== LP64 && !c.emulator ? model.qemu : undefined;
}

/**
 * Command names looked for on PATH (and among the root compilers' launchers): gcc, gcc-12, clang,
 * clang-15, tcc, pcc, cc, gcc-snapshot (GCC trunk), and cross gcc `<triplet>-gcc[-N]` of a modelled target.
 */
const DETECTABLE = /^(gcc|clang|tcc|pcc|cc)(-\d+(?:\.\d+)*)?$|^gcc-snapshot$/;
const CROSS_DETECTABLE = new RegExp(
  `^(?:${TARGETS.filter((t) => t !== LP64)
    .map((t) => t.triplet.replace(/[.]/g, '\\.'))
    .join('|')})-gcc(-\\d+(?:\\.\\d+)*)?$`,
);
const FAMILY_ORDER: readonly CompilerFamily[] = ['gcc', 'clang', 'tcc', 'pcc', 'cc'];

/** Libraries appended to every link: tcc needs libm for some programs; harmless for the others. */
export const LINK_LIBRARIES: readonly string[] = ['-lm'];

/**
 * Detects the C compilers on PATH with their versions. Symlinks to one binary are one compiler
 * (`gcc` and `gcc-12` → `gcc`); `cc` is kept only when it is not one of the others.
 */
export async function detectCompilers(env: NodeJS.ProcessEnv = process.env): Promise<Compiler[]> {
  const found = new Map<string, string>(); // name → absolute command, first on PATH wins
  // The root compilers' launchers come after PATH: a compiler installed on the host keeps its name.
  for (const dir of [...(env.PATH ?? '').split(delimiter), launcherDir({ ...process.env, ...env })]) {
    if (!dir) continue;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!(DETECTABLE.test(name) || CROSS_DETECTABLE.test(name)) || found.has(name)) continue;
      const path = join(dir, name);
      if (isExecutableFile(path)) found.set(name, path);
    }
  }
  // One entry per real binary, named by the most familiar of its names.
  const byReal = new Map<string, { name: string; command: string }>();
  for (const [name, command] of [...found].sort(
    (a, b) => namePreference(a[0]) - namePreference(b[0]) || compareNames(a[0], b[0]),
  )) {
    let real: string;
    try {
      real = realpathSync(command);
    } catch {
      continue;
    }
    if (!byReal.has(real)) byReal.set(real, { name, command });
  }
  const probed = await Promise.all(
    [...byReal].map(async ([realPath, { name, command }]) => {
      try {
        const root = launcherOrigin(command);
        if (root && rootProblem(name, root)) return undefined; // `kiln compilers` says why (unusableRootCompilers)
        const version = await probeVersion(command, familyFromName(name));
        const family = familyOf(name, version);
        return {
          name,
          command,
          realPath,
          family,
          version,
          ...(await targetOf(command, family, env, root)),
          ...(root ? { root } : {}),
        } satisfies Compiler;
      } catch {
        return undefined; // a broken installation is not a compiler to test
      }
    }),
  );
  return probed.filter((c): c is Compiler => c !== undefined).sort((a, b) => compareNames(a.name, b.name));
}

/**
 * Resolves a compiler named by the user: a command on PATH (`clang-14`) or a path
 * (`/opt/cc/bin/cc`, `./fake-gcc`). Throws `KILN_UNKNOWN_COMPILER` when it cannot be run.
 */
export async function resolveCompiler(
  spec: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Promise<Compiler> {
  const trimmed = spec.trim();
  if (!trimmed) throw errUnknownCompiler(spec, 'empty name');
  let command: string;
  if (trimmed.includes('/')) {
    command = isAbsolute(trimmed) ? trimmed : resolve(cwd, trimmed);
    if (!isExecutableFile(command)) throw errUnknownCompiler(trimmed, 'no executable file at that path');
  } else {
    const found = findOnPath(trimmed, env) ?? launcherIn(trimmed, env);
    if (!found) {
      throw isLatestProfileName(trimmed)
        ? errUnknownCompiler(trimmed, `not found on PATH, and no sid root holds it; '${LATEST_SETUP}' installs it`)
        : errUnknownCompiler(trimmed, 'not found on PATH');
    }
    command = found;
  }
  const name = basename(command);
  const root = launcherOrigin(command);
  if (root) {
    const problem = rootProblem(name, root);
    if (problem) throw problem;
  }
  let version: string;
  try {
    version = await probeVersion(command, familyFromName(name));
  } catch (e) {
    throw errUnknownCompiler(trimmed, (e as Error).message);
  }
  const family = familyOf(name, version);
  return {
    name,
    command,
    realPath: realpathSync(command),
    family,
    version,
    ...(await targetOf(command, family, env, root)),
    ...(root ? { root } : {}),
  };
}

/**
 * The target of a gcc or clang driver, from `-dumpmachine` (`m68k-linux-gnu`), with the emulator
 * that runs its binaries: `qemu-<arch> -L /usr/<triplet>` (Debian's cross libraries live there).
 * Host compilers, other families and machines Kiln has no model for get no target (the host's).
 */
async function targetOf(
  command: string,
  family: CompilerFamily,
  env: NodeJS.ProcessEnv = process.env,
  root?: RootOrigin,
): Promise<{ target?: string; emulator?: readonly string[] }> {
  if (family !== 'gcc' && family !== 'clang') return {};
  let machine: string | undefined;
  try {
    const r = await runProcess(command, ['-dumpmachine'], { timeoutMs: 15_000, maxOutputBytes: 4 << 10 });
    machine = r.status === 0 ? firstLine(r.stdout) : undefined;
  } catch {
    return {};
  }
  const model = machine === undefined ? undefined : modelOfMachine(machine);
  if (!model || model === LP64) return {};
  const emulator = emulatorFor(model, env, root);
  return { target: model.name, ...(emulator ? { emulator } : {}) };
}

/**
 * The argv prefix that runs a model's Linux binaries: `qemu-<arch> -L /usr/<triplet>` when that
 * qemu is on PATH; for a compiler of a sid root, the root's own qemu-user first (static-pie, so it
 * runs on the host as it is, and new enough for RVV 1.0, SVE2, LASX and POWER10), with no `-L`:
 * a root compiler links statically.
 */
export function emulatorFor(
  model: TargetModel,
  env: NodeJS.ProcessEnv = process.env,
  root?: RootOrigin,
): readonly string[] | undefined {
  if (root) {
    const own = join(root.path, 'usr/bin', model.qemu);
    if (isExecutableFile(own)) return [own];
  }
  const qemu = findOnPath(model.qemu, env);
  return qemu ? [qemu, '-L', `/usr/${model.triplet}`] : undefined;
}

/** The model of a `-dumpmachine` triplet: exact triplet first, then by architecture (`i386`, `x86_64-pc-linux-gnu`). */
export function modelOfMachine(machine: string): TargetModel | undefined {
  const exact = TARGETS.find((t) => t.triplet === machine);
  if (exact) return exact;
  const arch = machine.split('-')[0] ?? '';
  if (/^i[3-6]86$/.test(arch)) return TARGETS.find((t) => t.name === 'i686');
  // Only a Linux triplet with the model's exact arch: mipsel or powerpc64 are other ABIs.
  if (!/-linux-gnu/.test(machine)) return undefined;
  return TARGETS.find((t) => t.name === arch);
}

/** Resolves a list of compilers, dropping repeats of one binary and making display names unique. */
export async function resolveCompilers(
  specs: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Promise<Compiler[]> {
  const all = await Promise.all(specs.map((s) => resolveCompiler(s, env, cwd)));
  const seen = new Set<string>();
  const names = new Set<string>();
  const out: Compiler[] = [];
  for (const c of all) {
    if (seen.has(c.realPath)) continue; // `gcc,gcc-12` name one binary: test it once
    seen.add(c.realPath);
    let name = c.name;
    for (let i = 2; names.has(name); i++) name = `${c.name}~${i}`;
    names.add(name);
    out.push({ ...c, name });
  }
  return out;
}

/** Runs the compiler's version flag and returns the first non-empty line it prints. */
async function probeVersion(command: string, family: CompilerFamily): Promise<string> {
  const flag = family === 'tcc' ? '-v' : '--version';
  let r;
  try {
    r = await runProcess(command, [flag], { timeoutMs: 15_000, maxOutputBytes: 64 << 10 });
  } catch (e) {
    if (e instanceof SpawnError) throw new Error(`cannot run it (${e.code ?? e.message})`);
    throw e;
  }
  if (r.timedOut) throw new Error(`'${flag}' did not finish within 15 s`);
  // pcc prints its version and then complains about missing input files: the text counts.
  const line = firstLine(r.stdout) ?? firstLine(r.stderr);
  if (!line) throw new Error(`'${basename(command)} ${flag}' printed nothing (status ${r.status ?? r.signal})`);
  return line;
}

function firstLine(text: string): string | undefined {
  return text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 0);
}

/** The launcher of a root compiler (or tool) named `name`, if setup wrote one. */
export function launcherIn(name: string, env: NodeJS.ProcessEnv): string | undefined {
  // A caller's env that only sets PATH still finds the process's cache folder.
  const p = join(launcherDir({ ...process.env, ...env }), name);
  return isExecutableFile(p) && launcherOrigin(p) ? p : undefined;
}

/** The absolute path of an executable `name` on `env.PATH`, if there is one. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    if (isExecutableFile(p)) return isAbsolute(p) ? p : resolve(p);
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function familyFromName(name: string): CompilerFamily {
  if (name === 'gcc-snapshot') return 'gcc';
  const m = /(gcc|clang|tcc|pcc)(?:-[\d.]+)?$/.exec(name);
  return m ? (m[1] as CompilerFamily) : 'cc';
}

/** The family, from the version text first (a `cc` is usually gcc or clang), then from the name. */
function familyOf(name: string, version: string): CompilerFamily {
  if (/clang/i.test(version)) return 'clang';
  if (/tcc version|tiny ?c/i.test(version)) return 'tcc';
  if (/portable c compiler/i.test(version)) return 'pcc';
  if (/\bgcc\b|free software foundation/i.test(version)) return 'gcc';
  return familyFromName(name);
}

/** Lower is preferred as the display name of a binary with several names. */
function namePreference(name: string): number {
  if (CROSS_DETECTABLE.test(name) || /^x86_64-linux-gnu-/.test(name)) return 3;
  if (name === 'cc') return 2;
  return name.includes('-') ? 1 : 0;
}

function compareNames(a: string, b: string): number {
  const fa = FAMILY_ORDER.indexOf(familyFromName(a));
  const fb = FAMILY_ORDER.indexOf(familyFromName(b));
  if (fa !== fb) return fa - fb;
  return a.localeCompare(b, 'en', { numeric: true });
}

/**
 * The numeric version of a compiler from its `--version` line (`12.2.0`, `22.1.8`, `17.0.0` for
 * a GCC snapshot), as numbers to compare; a snapshot (`experimental`) sorts after its release.
 */
export function versionKey(c: Pick<Compiler, 'version' | 'family' | 'name'>): number[] {
  const text = c.version;
  const m =
    c.family === 'clang'
      ? /version (\d+)\.(\d+)(?:\.(\d+))?/.exec(text)
      : (/\)\s+(\d+)\.(\d+)(?:\.(\d+))?/.exec(text) ?? /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text));
  const parts = m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : [0, 0, 0];
  return [...parts, /experimental|snapshot|\(prerelease\)/i.test(text) || c.name === 'gcc-snapshot' ? 1 : 0];
}

/**
 * The date of a trunk snapshot, from its version line: LLVM's Debian snapshots
 * (`24.0.0 (++20261025103442+7e3c…-1~exp1)`) and GCC's (`17.0.0 20261020 (experimental)`), as
 * `2026-10-25`; undefined for a release.
 */
export function snapshotDate(c: Pick<Compiler, 'version' | 'family'>): string | undefined {
  const m =
    c.family === 'clang'
      ? /\(\+\+(\d{4})(\d{2})(\d{2})\d*\+/.exec(c.version)
      : /\s(\d{4})(\d{2})(\d{2})\s+\((?:experimental|prerelease)\)/.exec(c.version);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}
