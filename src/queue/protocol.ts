// What travels through Redis between a campaign's coordinator and its workers. Programs never do:
// a program is its seed, mode and policy, so a worker returns only results and the coordinator
// regenerates the program of a finding (see campaignReport).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ModeChoice } from '../gen/mode.js';
import { modeFor } from '../gen/mode.js';
import type { Policy } from '../gen/policy.js';
import type { FinalResult, HangConfirmation, ProgramReport } from '../harness/runner.js';
import type { ConfigResult, StepRecord } from '../harness/execute.js';
import type { Configuration, Limits } from '../harness/matrix.js';
import { FINDING_OUTCOMES } from '../harness/oracle.js';
import { campaignFiles } from '../harness/program.js';
import { flagTokens } from '../harness/swarm.js';
import { generateProgram } from '../repair/generate.js';

/**
 * How long a batch stays locked without renewal: a killed worker's batch is taken again after
 * this. Here rather than in worker.ts so that the CLI can show it without loading BullMQ.
 */
export const DEFAULT_LOCK_MS = 15_000;

/** The BullMQ queue of batches (one campaign per Redis database). */
export const QUEUE_NAME = 'kiln-batches';
/** The Redis key holding the campaign's {@link CampaignMeta}. */
export const META_KEY = 'kiln:campaign';
/** Characters of a step's stdout and stderr a worker sends back (a finding keeps 4,000 of stderr). */
const STREAM_EXCERPT = 4_000;

/** The campaign settings a worker needs, as the coordinator publishes them. */
export interface WireSettings {
  readonly compilers: readonly { readonly name: string; readonly command: string; readonly version: string }[];
  readonly optionSets: readonly string[];
  readonly limits: Limits;
  readonly policy: Policy;
  readonly mode: ModeChoice;
  readonly rerun: boolean;
}

/** The campaign a queue belongs to. */
export interface CampaignMeta {
  /** Which campaign owns the queue: host, output folder and campaign id of its coordinator. */
  readonly owner: string;
  /** Digest of `settings` and `kiln`: every batch names it, so a worker never mixes campaigns. */
  readonly digest: string;
  /** Kiln version of the coordinator: the same seed must give the same program on both sides. */
  readonly kiln: string;
  readonly settings: WireSettings;
}

/** One batch of seeds to test. */
export interface BatchData {
  readonly digest: string;
  readonly seeds: readonly string[];
}

/** Who ran a batch, and with what. */
interface WorkerInfo {
  /** `HOST/PID`, unique while the worker runs. */
  readonly id: string;
  readonly kiln: string;
  readonly compilers: readonly { readonly name: string; readonly version: string }[];
}

/**
 * A configuration's result without its configuration object (named by slug instead), with the
 * flags a swarm test drew: the coordinator's configuration has the option set only.
 */
type WireConfigResult = Omit<ConfigResult, 'config'> & { readonly drawn?: readonly string[] };

/** A FinalResult on the wire. */
interface WireFinal extends Omit<FinalResult, 'config' | 'result' | 'rerun'> {
  readonly slug: string;
  readonly result: WireConfigResult;
  readonly rerun?: WireConfigResult;
}

/** A ProgramReport on the wire: no files; the expected line lets the coordinator check its regeneration. */
export interface WireReport extends Omit<ProgramReport, 'seed' | 'files' | 'results'> {
  readonly seed: string;
  readonly results: readonly WireFinal[];
}

/** A hang confirmation on the wire. */
export interface WireConfirmation {
  readonly seed: string;
  readonly slug: string;
  readonly verdict: 'confirmed' | 'cleared';
  readonly result: WireConfigResult;
}

/** What a worker returns for a batch (the job's return value). */
export interface BatchResult {
  readonly digest: string;
  readonly worker: WorkerInfo;
  readonly programs: readonly WireReport[];
  readonly confirmations: readonly WireConfirmation[];
  /** (program, configuration) tests run, re-runs not counted. */
  readonly tests: number;
  /** Wall time the worker spent on the batch. */
  readonly elapsedMs: number;
}

/** This installation's Kiln version. */
export function kilnVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
}

/** The digest of a campaign's settings and Kiln version. */
export function settingsDigest(settings: WireSettings, kiln: string): string {
  return createHash('sha256').update(JSON.stringify({ settings, kiln })).digest('hex').slice(0, 16);
}

function step(s: StepRecord): StepRecord {
  const cut = (t: string): string =>
    t.length > STREAM_EXCERPT ? `${t.slice(0, STREAM_EXCERPT)}\n[... ${t.length - STREAM_EXCERPT} more characters]` : t;
  return { ...s, stdout: cut(s.stdout), stderr: cut(s.stderr) };
}

/** A configuration result as sent: long streams cut to an excerpt. */
function wireResult(r: ConfigResult): WireConfigResult {
  const { config, ...rest } = r;
  return {
    ...rest,
    compile: step(r.compile),
    ...(r.run ? { run: step(r.run) } : {}),
    ...(config.swarm?.drawn ? { drawn: config.swarm.drawn } : {}),
  };
}

/** A finished program as sent (its files stay behind). */
export function wireReport(r: ProgramReport): WireReport {
  const { files: _files, results, seed, ...rest } = r;
  return {
    ...rest,
    seed: String(seed),
    results: results.map(({ config, result, rerun, ...f }) => ({
      ...f,
      slug: config.slug,
      result: wireResult(result),
      ...(rerun ? { rerun: wireResult(rerun) } : {}),
    })),
  };
}

/** A hang confirmation as sent. */
export function wireConfirmation(c: HangConfirmation): WireConfirmation {
  return { seed: String(c.seed), slug: c.config.slug, verdict: c.verdict, result: wireResult(c.result) };
}

/** Resolves a slug to the coordinator's configuration; an unknown one means the worker ran other settings. */
function configOf(bySlug: ReadonlyMap<string, Configuration>, slug: string): Configuration {
  const c = bySlug.get(slug);
  if (!c) throw new Error(`a worker returned a result for configuration '${slug}', which the campaign does not have`);
  return c;
}

/**
 * A worker's report back in the coordinator's terms. A program with a finding or an internal
 * disagreement is regenerated here from its seed (its files go into the finding folder); a
 * regeneration whose expected line differs from the worker's is a determinism failure, reported
 * as an error rather than written as a finding about another program.
 */
export function campaignReport(
  w: WireReport,
  bySlug: ReadonlyMap<string, Configuration>,
  policy: Policy,
  mode: ModeChoice,
): ProgramReport {
  const seed = BigInt(w.seed);
  const withConfig = ({ drawn, ...r }: WireConfigResult, config: Configuration): ConfigResult => ({
    ...r,
    config: drawn ? drawnInstance(config, drawn) : config,
  });
  const results: FinalResult[] = w.results.map(({ slug, result, rerun, ...f }) => {
    const config = configOf(bySlug, slug);
    return { ...f, config, result: withConfig(result, config), ...(rerun ? { rerun: withConfig(rerun, config) } : {}) };
  });
  const needsFiles = w.internal !== undefined || results.some((r) => FINDING_OUTCOMES.has(r.outcome));
  const { seed: _seed, results: _results, ...rest } = w;
  if (!needsFiles || w.status !== 'tested') return { ...rest, seed, results };
  // The seed as text, as generation processes receive it: generateProgram(3n) and
  // generateProgram('3') draw different programs, and the campaign's are drawn from the text.
  const g = generateProgram(w.seed, policy, modeFor(w.seed, mode));
  if (!g.ok || g.expected !== w.expected) {
    throw new Error(
      `seed ${seed}: the program regenerated ` +
        `here ${g.ok ? `expects '${g.expected}'` : `was discarded (${g.reason})`}, the worker's expected ` +
        `'${w.expected}': the two Kilns do not generate the same program`,
    );
  }
  return { ...rest, seed, results, files: campaignFiles(g, policy) };
}

/** The configuration a swarm test ran, from its option set's configuration and the flags the worker drew. */
function drawnInstance(c: Configuration, drawn: readonly string[]): Configuration {
  const options = [...c.options, ...drawn.flatMap(flagTokens)];
  return { ...c, options, swarm: { max: c.swarm?.max ?? drawn.length, drawn } };
}

/** A worker's hang confirmation in the coordinator's terms. */
export function campaignConfirmation(
  w: WireConfirmation,
  bySlug: ReadonlyMap<string, Configuration>,
): HangConfirmation {
  const config = configOf(bySlug, w.slug);
  const { drawn, ...result } = w.result;
  return {
    seed: BigInt(w.seed),
    config,
    verdict: w.verdict,
    result: { ...result, config: drawn ? drawnInstance(config, drawn) : config },
  };
}
