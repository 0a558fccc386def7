import { constants } from 'node:os';
// A stored finding as triage sees it: what finding.json says (outcome, bucket, compiler, options,
// expected line, limits) plus the program's source files, read back from the finding folder.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errFile, errNotAFinding } from '../diag/errors.js';
import { SPLIT_FILES, type EmittedFile } from '../emit/files.js';
import { SOURCE_FILE } from '../harness/execute.js';
import { DEFAULT_LIMITS, optionTokens, type Limits, type StepLimits } from '../harness/matrix.js';
import { OUTCOMES, type Behaviour, type Outcome } from '../harness/oracle.js';

/** Name of the manifest every finding folder holds. */
export const FINDING_MANIFEST = 'finding.json';

/** One file of a finding's program (a translation unit or a header), as the harness compiles it. */
type SourceFile = EmittedFile;

/** The fields of finding.json that triage needs. */
export interface StoredFinding {
  /** The finding folder. */
  readonly dir: string;
  readonly id: string;
  readonly outcome: Outcome;
  readonly bucket: string;
  /** Display name of the compiler in the campaign (`clang-15`); part of crash buckets. */
  readonly compilerName: string;
  /** The command the campaign ran (an absolute path). */
  readonly compilerPath: string;
  readonly compilerVersion: string;
  /**
   * Option tokens of the configuration, in order: the minimal command line when triage found one
   * (finding.json's `minimised`, src/triage/minimise-command.ts), else the campaign's.
   */
  readonly options: readonly string[];
  /** The options the campaign ran, when they differ from {@link options}. */
  readonly campaignOptions?: readonly string[];
  readonly expected: string;
  readonly actual: string;
  readonly limits: Limits;
  /** The program: `prog.c` today, several files once programs span translation units. */
  readonly sources: readonly SourceFile[];
  /**
   * Every failing behaviour the finding showed, its own outcome and bucket first; a
   * nondeterministic finding has several, and any of them counts as the bug showing.
   */
  readonly behaviours: readonly Behaviour[];
}

/** The hint of a finding.json that cannot be used. */
const DAMAGED =
  'the finding folder is damaged or was written by another version of Kiln; its repro.sh still reproduces ' +
  'the bug: kiln reduce prog.c --test repro.sh';

/** Whether a folder holds a Kiln finding (a `finding.json` file). */
export function isFindingDir(dir: string): boolean {
  const p = join(dir, FINDING_MANIFEST);
  return existsSync(p) && statSync(p).isFile();
}

/**
 * Reads a finding folder written by `kiln fuzz`. Throws `KILN_NOT_A_FINDING` when the folder has
 * no finding.json and `KILN_FILE` when the manifest or a source file cannot be used.
 */
export function readFinding(dir: string): StoredFinding {
  if (!isFindingDir(dir)) throw errNotAFinding(dir);
  const path = join(dir, FINDING_MANIFEST);
  let json: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
    json = parsed as Record<string, unknown>;
  } catch (e) {
    throw errFile(path, `not a valid finding manifest: ${(e as Error).message}`, DAMAGED);
  }
  const text = (field: string): string => {
    const v = json[field];
    if (typeof v !== 'string')
      throw errFile(path, `not a valid finding manifest: field '${field}' is missing or not a string`, DAMAGED);
    return v;
  };
  const outcome = text('outcome');
  if (!(OUTCOMES as readonly string[]).includes(outcome))
    throw errFile(path, `not a valid finding manifest: unknown outcome '${outcome}'`, DAMAGED);
  const listed = readBehaviours(json.behaviours);
  const same = (b: Behaviour): boolean => b.outcome === outcome && b.bucket === json.bucket;
  // The finding's own behaviour with what its listing says of it (a crash's signature, a signal).
  const own: Behaviour = listed.find(same) ?? { outcome: outcome as Outcome, bucket: text('bucket') };
  return {
    dir,
    id: text('id'),
    outcome: outcome as Outcome,
    bucket: text('bucket'),
    compilerName: text('compiler'),
    compilerPath: typeof json.compilerPath === 'string' ? json.compilerPath : text('compiler'),
    compilerVersion: typeof json.compilerVersion === 'string' ? json.compilerVersion : '',
    ...optionsOf(json, text('options')),
    expected: text('expected'),
    actual: typeof json.actual === 'string' ? json.actual : '',
    limits: readLimits(json.limits),
    sources: readSources(dir, json.files, path),
    behaviours: [own, ...listed.filter((b) => !same(b))],
  };
}

/** The options of a finding: minimised when finding.json says so, the campaign's beside them. */
function optionsOf(
  json: Record<string, unknown>,
  campaign: string,
): Pick<StoredFinding, 'options' | 'campaignOptions'> {
  const m = json.minimised as { options?: unknown } | undefined;
  const minimal = Array.isArray(m?.options) && m.options.every((o) => typeof o === 'string') ? m.options : undefined;
  return minimal ? { options: minimal, campaignOptions: optionTokens(campaign) } : { options: optionTokens(campaign) };
}

/** The behaviours a finding.json lists (older manifests have none: the outcome and bucket stand alone). */
function readBehaviours(raw: unknown): Behaviour[] {
  if (!Array.isArray(raw)) return [];
  const out: Behaviour[] = [];
  for (const b of raw as unknown[]) {
    if (typeof b !== 'object' || b === null) continue;
    const o = b as Record<string, unknown>;
    if (typeof o.outcome !== 'string' || !(OUTCOMES as readonly string[]).includes(o.outcome)) continue;
    // Every field a repro script checks: without its signal a crash would be tested as exit status 1.
    out.push({
      outcome: o.outcome as Outcome,
      ...(typeof o.bucket === 'string' ? { bucket: o.bucket } : {}),
      ...(typeof o.detail === 'string' ? { detail: o.detail } : {}),
      ...(typeof o.output === 'string' ? { output: o.output } : {}),
      ...(typeof o.signal === 'string' && o.signal in constants.signals ? { signal: o.signal as NodeJS.Signals } : {}),
      ...(typeof o.exitStatus === 'number' ? { exitStatus: o.exitStatus } : {}),
      ...(typeof o.match === 'string' ? { match: o.match } : {}),
      ...(Array.isArray(o.signature) && o.signature.every((x) => typeof x === 'string')
        ? { signature: o.signature as string[] }
        : {}),
    });
  }
  return out;
}

/**
 * The program's files in command-line order: those the manifest lists (`files`: names or
 * `{name}`), else the split layout when the folder holds it, else `prog.c`.
 */
function readSources(dir: string, listed: unknown, manifest: string): SourceFile[] {
  const names: string[] = [];
  if (Array.isArray(listed)) {
    for (const f of listed as unknown[]) {
      const name =
        typeof f === 'string'
          ? f
          : typeof f === 'object' && f !== null && typeof (f as { name?: unknown }).name === 'string'
            ? (f as { name: string }).name
            : undefined;
      if (name === undefined || name.includes('/') || name.startsWith('.'))
        throw errFile(manifest, `not a valid finding manifest: bad entry in 'files': ${JSON.stringify(f)}`, DAMAGED);
      if (/\.[ch]$/.test(name)) names.push(name);
    }
  }
  if (names.length === 0) {
    const split = [SPLIT_FILES.header, SPLIT_FILES.init, SPLIT_FILES.func, SPLIT_FILES.driver];
    names.push(...(split.every((n) => existsSync(join(dir, n))) ? split : [SOURCE_FILE]));
  }
  return names.map((name) => {
    const p = join(dir, name);
    try {
      return { name, content: readFileSync(p, 'utf8') };
    } catch (e) {
      throw errFile(
        p,
        `cannot read the finding's program: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  });
}

/** The campaign's limits as stored (JSON drops an undefined memory limit: none). */
function readLimits(raw: unknown): Limits {
  if (typeof raw !== 'object' || raw === null) return DEFAULT_LIMITS;
  const step = (v: unknown, fallback: StepLimits): StepLimits => {
    if (typeof v !== 'object' || v === null) return fallback;
    const o = v as { timeoutMs?: unknown; memoryMb?: unknown };
    return {
      timeoutMs: typeof o.timeoutMs === 'number' && o.timeoutMs > 0 ? o.timeoutMs : fallback.timeoutMs,
      memoryMb: typeof o.memoryMb === 'number' && o.memoryMb > 0 ? o.memoryMb : undefined,
    };
  };
  const l = raw as { compile?: unknown; run?: unknown };
  return { compile: step(l.compile, DEFAULT_LIMITS.compile), run: step(l.run, DEFAULT_LIMITS.run) };
}

/**
 * The optimisation level an option list selects: the last `-O…` wins, `-O` is `-O1`, and no
 * `-O` at all is `-O0` (the default of gcc and clang).
 */
export function optimisationLevel(options: readonly string[]): string {
  const last = [...options].reverse().find((o) => /^-O/.test(o));
  if (last === undefined) return '-O0';
  return last === '-O' ? '-O1' : last;
}
