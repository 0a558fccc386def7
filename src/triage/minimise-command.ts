// The smallest command line that still shows a finding, found before anything else is done with
// it (reduction, pass search, the version line): the flags a swarm test drew (a halving search for
// the subset that keeps the bug, src/triage/minimise.ts), then the ISA options (dropped, or the
// lowest x86-64 level that keeps it), then LTO, then the optimisation level (the lowest that
// keeps it). A compiler engineer files the command with one flag, not nine, and a bucket keyed by
// the minimal command is the same for every test that drew the same culprit.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { reproScript } from '../harness/repro.js';
import { flagTokens } from '../harness/swarm.js';
import { resolveCompiler, type Compiler } from '../harness/compilers.js';
import { isaOptions } from '../harness/isa.js';
import { TempRoot } from '../harness/tempdir.js';
import { FINDING_MANIFEST, optimisationLevel, readFinding, type StoredFinding } from './finding.js';
import { minimalSubset } from './minimise.js';
import { bugPredicate, findingConfiguration, TriageAborted } from './predicate.js';

/** What the minimisation found (also finding.json's `minimised` field). */
export interface CommandMinimisation {
  /** The minimal options, in order (a profile pseudo-option kept). */
  readonly options: readonly string[];
  /** The options the finding had before. */
  readonly original: readonly string[];
  /** What was dropped or lowered, in words (`-fno-tree-pre`, `-march=native → -march=x86-64-v3`). */
  readonly changes: readonly string[];
  /** Compiles (each with its run) the search made. */
  readonly tests: number;
}

/** Outcomes whose finding is minimised: each test is a compile (and a run) that ends quickly. */
const MINIMISED: ReadonlySet<string> = new Set(['wrong-code', 'binary-crash', 'compiler-crash', 'rejected-valid']);

/** The x86-64 levels, lowest first, tried in place of a higher one. */
const LEVELS = ['x86-64-v2', 'x86-64-v3', 'x86-64-v4'];

/** What a minimisation needs besides the finding. */
interface MinimiseContext {
  readonly compiler: Compiler;
  readonly temp: TempRoot;
  readonly signal?: AbortSignal;
  readonly onProgress?: (line: string) => void;
}

/**
 * Finds the smallest command line of a finding (see the top of this file). Undefined when there
 * is nothing to minimise or the outcome is not one that is (hangs: each test would take the whole
 * limit), and when the finding does not show with its own options (flaky: nothing to conclude).
 * `drawn` are the swarm flags of the finding's options, each one flag (`-mllvm -x` is one).
 */
async function minimiseCommand(
  f: StoredFinding,
  drawn: readonly string[],
  ctx: MinimiseContext,
): Promise<CommandMinimisation | undefined> {
  if (!MINIMISED.has(f.outcome)) return undefined;
  let tests = 0;
  const shows = async (options: readonly string[]): Promise<boolean> => {
    tests++;
    const pctx = { compiler: ctx.compiler, temp: ctx.temp, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    const probe = await bugPredicate({ ...f, options: [...options] }, pctx)([]);
    ctx.onProgress?.(`${f.id}: minimising: ${options.join(' ')} → ${probe.verdict}`);
    return probe.verdict === 'shows';
  };
  const original = [...f.options];
  const changes: string[] = [];
  // A swarm test's drawn flags come last (src/harness/execute.ts, swarmInstance); the rest stay.
  const tail = drawn.flatMap(flagTokens);
  const drawnLast = tail.length > 0 && tail.every((t, i) => original[original.length - tail.length + i] === t);
  const units = drawnLast ? drawn : [];
  const fixed = drawnLast ? original.slice(0, original.length - tail.length) : original;
  const isa = isaOptions(fixed);
  const hasLto = fixed.some((o) => /^-flto(=.*)?$/.test(o));
  // A profile configuration's profile is built with its options: out of scope here.
  if (original.some((o) => o.startsWith('+profile'))) return undefined;
  // A plain-level finding keeps its level: a campaign tests every plain level, so a bug that also
  // shows at -O1 has an -O1 finding of its own. The level is lowered only with the rest.
  if (units.length === 0 && isa.length === 0 && !hasLto) return undefined;
  if (!(await shows(original))) return undefined;

  // 1. The drawn flags: the minimal subset that keeps the bug.
  let kept: readonly string[] = units;
  if (units.length > 0) {
    const withFlags = (flags: readonly string[]): string[] => [...fixed, ...flags.flatMap(flagTokens)];
    kept = (await shows(withFlags([])))
      ? []
      : (await minimalSubset(units, (subset) => shows(withFlags(subset)), 4 * units.length + 8)).subset;
    for (const d of units) if (!kept.includes(d)) changes.push(`dropped ${d}`);
  }
  let options: string[] = [...fixed, ...kept.flatMap(flagTokens)];

  // 2. The ISA: none at all, else the lowest level that keeps it, else without a preferred vector width.
  if (isa.length > 0) {
    const without = options.filter((o) => !isa.includes(o));
    if (await shows(without)) {
      changes.push(`dropped ${isa.join(' ')}`);
      options = without;
    } else {
      const march = isa.find((o) => o.startsWith('-march='));
      const current = march?.slice('-march='.length);
      const lower =
        current === undefined
          ? []
          : current === 'native'
            ? LEVELS
            : LEVELS.slice(0, Math.max(0, LEVELS.indexOf(current)));
      for (const l of lower) {
        const trial = options.map((o) => (o === march ? `-march=${l}` : o));
        if (await shows(trial)) {
          changes.push(`${march} → -march=${l}`);
          options = trial;
          break;
        }
      }
      const width = options.find((o) => o.startsWith('-mprefer-vector-width='));
      if (width) {
        const trial = options.filter((o) => o !== width);
        if (await shows(trial)) {
          changes.push(`dropped ${width}`);
          options = trial;
        }
      }
    }
  }

  // 3. LTO (with the linker Kiln added for it).
  if (hasLto) {
    const trial = options.filter((o) => !/^-flto(=.*)?$/.test(o) && o !== '-fuse-ld=lld');
    if (await shows(trial)) {
      changes.push('dropped -flto');
      options = trial;
    }
  }

  // 4. The optimisation level: the lowest that keeps it.
  const at = optimisationLevel(options);
  const order = ['-O0', '-O1', '-O2', '-O3'];
  const below = at === '-Os' || at === '-Oz' ? ['-O0', '-O1'] : order.slice(0, Math.max(0, order.indexOf(at)));
  for (const l of below) {
    const trial = withLevel(options, l);
    if (await shows(trial)) {
      changes.push(`${at} → ${l}`);
      options = trial;
      break;
    }
  }
  return { options, original, changes, tests };
}

/** The options with their optimisation level replaced (every `-O…` token, so the last stays the one). */
function withLevel(options: readonly string[], level: string): string[] {
  const out = options.filter((o) => !/^-O/.test(o));
  const first = options.findIndex((o) => /^-O/.test(o));
  out.splice(first < 0 ? 0 : first, 0, level);
  return out;
}

/**
 * Minimises the finding in `dir` once and records it there: finding.json gets `minimised` (its
 * own `options` stay as the campaign ran them; readers take the minimal ones), a wrong-code or
 * binary-hang bucket is keyed by the minimal options (the campaign's is kept as `campaignBucket`),
 * and repro.sh is written anew with them (the campaign's stays as `repro.campaign.sh`). Returns
 * the minimisation, the stored one when the finding already has one, or undefined.
 */
async function minimiseFindingCommand(dir: string, ctx: MinimiseContext): Promise<CommandMinimisation | undefined> {
  const path = join(dir, FINDING_MANIFEST);
  const json = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  if (json.minimised && typeof json.minimised === 'object') return json.minimised as CommandMinimisation;
  const f = readFinding(dir);
  const swarm = json.swarm as { drawn?: unknown } | undefined;
  const drawn = Array.isArray(swarm?.drawn) ? swarm.drawn.filter((d): d is string => typeof d === 'string') : [];
  let m: CommandMinimisation | undefined;
  try {
    m = await minimiseCommand(f, drawn, ctx);
  } catch (e) {
    if (e instanceof TriageAborted) return undefined;
    throw e;
  }
  if (!m) return undefined;
  const text = m.options.join(' ');
  const rekey = (b: unknown, outcome: unknown): unknown =>
    typeof b === 'string' && (outcome === 'wrong-code' || outcome === 'binary-hang')
      ? `${b.split(':').slice(0, 2).join(':')}:${text}`
      : b;
  const behaviours = Array.isArray(json.behaviours)
    ? (json.behaviours as Record<string, unknown>[]).map((b) => ({ ...b, bucket: rekey(b.bucket, b.outcome) }))
    : json.behaviours;
  const bucket = rekey(json.bucket, json.outcome);
  const next = {
    ...json,
    ...(bucket !== json.bucket ? { bucket, campaignBucket: json.bucket } : {}),
    behaviours,
    minimised: m,
  };
  // repro.sh with the minimal options (the campaign's kept beside it).
  const own = f.behaviours[0]!;
  const config = findingConfiguration({ ...f, options: [...m.options] }, ctx.compiler);
  const script = reproScript({
    id: f.id,
    config,
    judgement: { ...own, ...(typeof bucket === 'string' ? { bucket } : {}) },
    ...(f.behaviours.length > 1 ? { alternatives: f.behaviours.slice(1) } : {}),
    expected: f.expected,
    limits: f.limits,
    files: f.sources.map((s) => s.name),
  });
  try {
    await rename(join(dir, 'repro.sh'), join(dir, 'repro.campaign.sh'));
  } catch {
    // no repro.sh: only the new one
  }
  await writeFile(join(dir, 'repro.sh'), script, { mode: 0o755 });
  await writeFile(`${path}.tmp`, `${JSON.stringify(next, null, 2)}\n`);
  await rename(`${path}.tmp`, path);
  return m;
}

/**
 * {@link minimiseFindingCommand} with the finding's own compiler and a temporary root of its own:
 * what triage, `kiln reduce` and a campaign's background reduction call before anything else.
 * A failure to minimise is a note (`onProgress`), never an error: the finding stays as it was.
 */
export async function minimiseFinding(
  dir: string,
  opts: {
    readonly signal?: AbortSignal;
    readonly onProgress?: (line: string) => void;
    readonly compiler?: Compiler;
  } = {},
): Promise<CommandMinimisation | undefined> {
  const temp = TempRoot.create();
  try {
    const f = readFinding(dir);
    const compiler = opts.compiler ?? (await resolveCompiler(f.compilerPath));
    const m = await minimiseFindingCommand(dir, {
      compiler,
      temp,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    });
    if (m && m.changes.length > 0)
      opts.onProgress?.(`${f.id}: minimal command: ${m.options.join(' ')} (${m.changes.join(', ')}; ${m.tests} tests)`);
    return m;
  } catch (e) {
    opts.onProgress?.(`minimising the command of ${dir} failed: ${(e as Error).message}`);
    return undefined;
  } finally {
    temp.dispose();
  }
}
