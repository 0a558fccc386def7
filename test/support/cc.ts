// Compiling and running C from tests. Missing tools fail loudly (never skip):
// `npm test` installs them through scripts/ensure-tools.mjs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Policy } from '../../src/gen/policy.js';
import { compilerCapabilities, policyFor } from '../../src/harness/capabilities.js';
import { resolveCompilers } from '../../src/harness/compilers.js';
import { runProcess, type RunResult } from '../../src/harness/process.js';

/** Throws a clear error when a command is not on PATH. */
export function requireTool(name: string): void {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(
      `required tool '${name}' is not installed: run 'npm run tools' (or scripts/ensure-tools.mjs as root)`,
    );
  }
}

export interface CompileOptions {
  /** Compiler command (default gcc). */
  readonly cc?: string;
  /** Flags placed before the source file (default -O0). */
  readonly flags?: readonly string[];
  /** Flags placed after the source file (libraries). */
  readonly libs?: readonly string[];
  /** Compile timeout in ms (default 120 s). */
  readonly timeoutMs?: number;
}

export interface Compiled {
  readonly exe: string;
  readonly dir: string;
  /** Compiler diagnostics. */
  readonly stderr: string;
  cleanup(): void;
}

/** Compiles one C translation unit into an executable in a fresh temporary directory. */
export async function compileC(source: string, opts: CompileOptions = {}): Promise<Compiled> {
  const cc = opts.cc ?? 'gcc';
  requireTool(cc);
  const dir = mkdtempSync(join(tmpdir(), 'kiln-test-'));
  const src = join(dir, 'prog.c');
  const exe = join(dir, 'prog');
  writeFileSync(src, source);
  const r = await runProcess(cc, [...(opts.flags ?? ['-O0']), '-w', src, '-o', exe, ...(opts.libs ?? [])], {
    cwd: dir,
    timeoutMs: opts.timeoutMs ?? 120_000,
  });
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `${cc} ${(opts.flags ?? []).join(' ')} failed (status ${r.status}, ` +
        `signal ${r.signal}):\n${r.stderr.slice(0, 4000)}`,
    );
  }
  return { exe, dir, stderr: r.stderr, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs a compiled program with a time limit. */
export function runExe(
  exe: string,
  args: readonly string[] = [],
  timeoutMs = 60_000,
  env?: Record<string, string>,
): Promise<RunResult> {
  return runProcess(exe, args, { timeoutMs, maxOutputBytes: 256 << 20, ...(env ? { env } : {}) });
}

/** Compiles, runs once and cleans up; returns the run result. */
export async function compileAndRun(
  source: string,
  opts: CompileOptions = {},
  args: readonly string[] = [],
): Promise<RunResult> {
  const c = await compileC(source, opts);
  try {
    return await runExe(c.exe, args);
  } finally {
    c.cleanup();
  }
}

/**
 * The policy lowered to what every named compiler accepts (`policyFor`, probes cached): for tests
 * that build each program with each of these compilers (gcc 12 has no `_BitInt`, clang no
 * `__builtin_shuffle`, tcc and pcc no vectors). Vectors and `__int128` stay on for gcc and clang.
 */
export async function policyForCompilers(policy: Policy, ...names: string[]): Promise<Policy> {
  for (const n of names) requireTool(n);
  const caps = await Promise.all((await resolveCompilers(names)).map((c) => compilerCapabilities(c)));
  return policyFor(policy, caps, 'every');
}

/**
 * The policy without GNU vectors, `__int128` and `_BitInt`: C that Frama-C (Eva, the last
 * detector of `kiln check`) parses; it has none of them.
 */
export function plainC(policy: Policy): Policy {
  return { ...policy, features: { ...policy.features, vectors: false, int128: false, bitInt: false } };
}
