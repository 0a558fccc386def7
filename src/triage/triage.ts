// Triage of one finding: a fingerprint naming the cause, so that findings of one bug group
// together. Compiler crashes and hangs already have a normalised bucket; wrong code (and binaries
// that crash because they were miscompiled) gets a pass search: opt-bisect for clang, disabled
// flags and passes for gcc.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { detectCompilers, resolveCompiler, type Compiler } from '../harness/compilers.js';
import { TempRoot } from '../harness/tempdir.js';
import { clangOptBisect } from './clang.js';
import { optimisationLevel, readFinding, type StoredFinding } from './finding.js';
import { DEFAULT_GCC_LIMITS, gccFlagSearch, type GccSearchLimits } from './gcc.js';
import { minimiseFinding } from './minimise-command.js';
import { bugPredicate, type Probe } from './predicate.js';
import type { SearchOutcome } from './search.js';
import { versionLine, withVersionSection, type VersionLine } from './versions.js';

/** The file triage writes into a finding folder. */
export const TRIAGE_FILE = 'triage.json';

/**
 * How a fingerprint was obtained: `opt-bisect` (clang), `gcc-disable` (a `-fno-` flag or a
 * `-fdisable-` pass), `bucket` (crashes, hangs, rejections and compilers without a pass search:
 * the campaign's normalised bucket is the fingerprint), `none` (a search was skipped or named no
 * pass; the fingerprint falls back to the bucket).
 */
type TriageMethod = 'opt-bisect' | 'gcc-disable' | 'bucket' | 'none';

/** What triage concluded about one finding (also the content of triage.json). */
export interface TriageResult {
  readonly findingId: string;
  /** `clang:InstCombinePass`, `gcc:-ftree-vrp`, `gcc:rtl-combine`, or the bucket. */
  readonly fingerprint: string;
  readonly method: TriageMethod;
  /** Compiles (each followed by a run) the search made. */
  readonly steps: number;
  /** One line for people: which pass, at which limit, or why none. */
  readonly detail: string;
  /** Whether the failure showed again with the finding's own configuration (false: flaky or environment-dependent). */
  readonly reproduced: boolean;
  /** Extra options that pin the culprit (hide the bug when changed by one step), when there is one. */
  readonly culpritOptions?: readonly string[];
  /** The finding on every installed version of its compiler's family (src/triage/versions.ts). */
  readonly versions?: VersionLine;
  readonly seconds: number;
}

/** Options of {@link triageFinding}. */
export interface TriageOptions {
  /** Temporary root for compile folders (one is made and removed when absent). */
  readonly temp?: TempRoot;
  readonly signal?: AbortSignal;
  /** Progress lines (the CLI writes them to stderr). */
  readonly onProgress?: (line: string) => void;
  /** The compiler to use instead of resolving the finding's compilerPath. */
  readonly compiler?: Compiler;
  readonly gccLimits?: GccSearchLimits;
  /** Write triage.json into the finding folder (default true). */
  readonly write?: boolean;
  /** Run the version line (default true). */
  readonly versions?: boolean;
  /** The compilers installed here, for the version line (detected when absent). */
  readonly installed?: readonly Compiler[];
  /** Minimise the command line first (default true; src/triage/minimise-command.ts). */
  readonly minimise?: boolean;
}

/** Outcomes a pass search can explain: the compiler produced a binary that misbehaves. */
const SEARCHED_OUTCOMES: ReadonlySet<string> = new Set(['wrong-code', 'binary-crash']);

/**
 * Fingerprints the finding in `dir` and writes `dir/triage.json`. Throws `KILN_NOT_A_FINDING`,
 * `KILN_FILE` or `KILN_UNKNOWN_COMPILER` for bad input; a search that names no pass is a result.
 */
export async function triageFinding(dir: string, opts: TriageOptions = {}): Promise<TriageResult> {
  const started = Date.now();
  // The smallest command line first (a swarm test's culprit flag, the lowest level): the pass
  // search and the version line run it, and a wrong-code bucket is keyed by it.
  if (opts.minimise !== false)
    await minimiseFinding(dir, {
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      ...(opts.compiler ? { compiler: opts.compiler } : {}),
    });
  const f = readFinding(dir);
  let result = await fingerprintFinding(f, opts, started);
  if (opts.versions !== false) {
    const own = opts.compiler ?? (await resolveCompiler(f.compilerPath));
    const installed = opts.installed ?? (await detectCompilers());
    const temp = opts.temp ?? TempRoot.create();
    try {
      const versions = await versionLine(f, own, installed, {
        temp,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      });
      result = { ...result, versions, seconds: Math.round((Date.now() - started) / 100) / 10 };
    } finally {
      if (!opts.temp) temp.dispose();
    }
  }
  if (opts.write !== false) {
    await writeTriage(dir, result);
    if (result.versions) await addVersionSection(dir, result.versions);
  }
  return result;
}

/** Puts the version line into the finding's report.md files (its reduced folder's, and its own if any). */
async function addVersionSection(dir: string, v: VersionLine): Promise<void> {
  for (const path of [join(dir, 'reduced', 'report.md'), join(dir, 'report.md')]) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      continue;
    }
    const tmp = `${path}.tmp-${process.pid}`;
    await writeFile(tmp, withVersionSection(text, v));
    await rename(tmp, path);
  }
}

async function fingerprintFinding(f: StoredFinding, opts: TriageOptions, started: number): Promise<TriageResult> {
  const done = (
    method: TriageMethod,
    steps: number,
    detail: string,
    fingerprint = f.bucket,
    extra: Partial<TriageResult> = {},
  ): TriageResult => ({
    findingId: f.id,
    fingerprint,
    method,
    steps,
    detail,
    reproduced: true,
    ...extra,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  });
  if (!SEARCHED_OUTCOMES.has(f.outcome))
    return done('bucket', 0, `${f.outcome}: the normalised bucket is the fingerprint`);
  const compiler = opts.compiler ?? (await resolveCompiler(f.compilerPath));
  if (compiler.family !== 'gcc' && compiler.family !== 'clang')
    return done('bucket', 0, `${compiler.family} has no pass search: the bucket is the fingerprint`);
  const level = optimisationLevel(f.options);
  if (level === '-O0') return done('none', 0, '-O0 runs no optional optimisation pass: nothing to bisect');

  const temp = opts.temp ?? TempRoot.create();
  let steps = 0;
  const onProbe = (p: Probe): void => {
    steps++;
    opts.onProgress?.(`${f.id}: probe ${steps}: ${p.extra.join(' ') || '(own options)'} → ${p.verdict}`);
  };
  try {
    const ctx = { compiler, temp, onProbe, ...(opts.signal ? { signal: opts.signal } : {}) };
    const test = bugPredicate(f, ctx);
    const family = compiler.family;
    const outcome: SearchOutcome =
      family === 'clang'
        ? await clangOptBisect(f, test, ctx)
        : await gccFlagSearch(f, test, ctx, opts.gccLimits ?? DEFAULT_GCC_LIMITS);
    const method: TriageMethod = family === 'clang' ? 'opt-bisect' : 'gcc-disable';
    switch (outcome.kind) {
      case 'culprit':
        return done(method, steps, outcome.detail, `${family}:${outcome.name}`, {
          culpritOptions: outcome.culpritOptions,
        });
      case 'no-culprit':
        return done('none', steps, outcome.detail);
      case 'not-reproduced':
        return done('none', steps, `did not reproduce: ${outcome.detail}`, f.bucket, { reproduced: false });
      default:
        throw new Error(`unknown search outcome ${JSON.stringify(outcome satisfies never)}`);
    }
  } finally {
    if (!opts.temp) temp.dispose();
  }
}

/** Writes triage.json atomically (a reader never sees half a file). */
async function writeTriage(dir: string, r: TriageResult): Promise<void> {
  const path = join(dir, TRIAGE_FILE);
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, `${JSON.stringify({ ...r, triagedAt: new Date().toISOString() }, null, 2)}\n`);
  await rename(tmp, path);
}
