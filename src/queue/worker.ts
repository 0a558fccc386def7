// A queue worker (`kiln worker`): takes batches of seeds from a campaign's queue, runs each with
// the local campaign loop (generate, compile, run, judge, re-run failures, check suspected hangs)
// and returns the results. BullMQ holds a lock on the batch while it runs; a worker that dies
// stops renewing it, and another worker takes the batch again once the lock has expired.
import { hostname } from 'node:os';
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { errBrokenConfiguration, errUnknownCompiler, errWorkerMismatch, isKilnError } from '../diag/errors.js';
import type { HangConfirmation, ProgramReport } from '../harness/runner.js';
import { runCampaign } from '../harness/scheduler.js';
import { resolveCompiler, type Compiler } from '../harness/compilers.js';
import { GeneratorPool } from '../harness/genpool.js';
import { campaignMatrix } from '../harness/configure.js';
import type { Configuration } from '../harness/matrix.js';
import { checkConfigurations } from '../harness/preflight.js';
import { TempRoot } from '../harness/tempdir.js';
import {
  DEFAULT_LOCK_MS,
  kilnVersion,
  META_KEY,
  QUEUE_NAME,
  wireConfirmation,
  wireReport,
  type BatchData,
  type BatchResult,
  type CampaignMeta,
  type WireConfirmation,
  type WireReport,
} from './protocol.js';
import { connectionOptions, openRedis, type QueueAddress } from './redis.js';

/** A campaign as a worker runs it. */
interface WorkerCampaign {
  readonly meta: CampaignMeta;
  readonly configurations: readonly Configuration[];
}

/** Runs one batch; returns what the worker sends back. The default runs the real campaign loop. */
type BatchExecutor = (
  c: WorkerCampaign,
  seeds: readonly bigint[],
  signal: AbortSignal,
) => Promise<{ programs: WireReport[]; confirmations: WireConfirmation[]; tests: number }>;

/** Options of {@link runWorker}. */
export interface WorkerOptions {
  readonly address: QueueAddress;
  /** Concurrent jobs inside a batch (generations and tests together). */
  readonly jobs: number;
  /** Status lines (campaign joined, batch done). */
  readonly say: (line: string) => void;
  /** Aborting it stops the worker; the batch in hand goes back to the queue. */
  readonly signal?: AbortSignal;
  /** Stop after this many batches (tests and benchmarks); default: run until stopped. */
  readonly maxBatches?: number;
  /** A line per batch taken and done (default true). */
  readonly verbose?: boolean;
  /** How results name this worker (default `HOST/PID`; several workers in one process need their own). */
  readonly id?: string;
  /** Lock duration of a batch (default {@link DEFAULT_LOCK_MS}). */
  readonly lockMs?: number;
  /** Resolves a campaign for this machine (default: {@link resolveCampaign}, which checks compilers and versions). */
  readonly resolve?: (meta: CampaignMeta) => Promise<WorkerCampaign>;
  /** Runs a batch (default: the campaign loop with a generator pool kept per campaign). */
  readonly execute?: BatchExecutor;
}

/** What a worker did before it stopped. */
export interface WorkerSummary {
  readonly batches: number;
  readonly programs: number;
  readonly tests: number;
}

/**
 * Resolves the campaign's compilers on this machine — the coordinator's path if it exists here,
 * else the compiler's name on PATH — and refuses (KILN_WORKER_MISMATCH) when Kiln or a compiler
 * has another version than the coordinator's: results of another compiler, or programs of another
 * generator, would be recorded under the campaign's names. Then compiles and runs the check
 * program with every configuration, as `kiln fuzz` does before a local campaign.
 */
async function resolveCampaign(meta: CampaignMeta, jobs: number): Promise<WorkerCampaign> {
  const mine = kilnVersion();
  if (mine !== meta.kiln)
    throw errWorkerMismatch(
      `the campaign runs Kiln ${meta.kiln}, this worker Kiln ${mine} (one seed must give one program on every machine)`,
    );
  const compilers: Compiler[] = [];
  for (const c of meta.settings.compilers) {
    let found: Compiler;
    try {
      found = await resolveCompiler(c.command).catch(() => resolveCompiler(c.name));
    } catch (e) {
      throw errUnknownCompiler(
        c.name,
        `the campaign needs it and this worker has neither ${c.command} nor '${c.name}' on ` +
          `PATH${isKilnError(e) ? '' : ` (${(e as Error).message})`}`,
      );
    }
    if (found.version !== c.version)
      throw errWorkerMismatch(`${c.name} here is '${found.version}', the campaign's is '${c.version}'`);
    compilers.push({ ...found, name: c.name });
  }
  // Swarm catalogues and ISA probes are this machine's: a worker may run what the coordinator cannot.
  const configurations = await campaignMatrix(compilers, meta.settings.optionSets);
  const broken = await checkConfigurations(configurations, meta.settings.limits, jobs);
  if (broken && broken.length > 0) {
    const b = broken[0]!;
    throw errBrokenConfiguration(
      `${b.config.compiler.name}${b.config.optionsText ? ` ${b.config.optionsText}` : ''}`,
      `${b.reason} on this worker`,
      broken.length - 1,
      'fix the compiler on this machine, or run the worker elsewhere',
    );
  }
  return { meta, configurations };
}

/**
 * The default batch executor: the local campaign loop over the batch's seeds, with one generator
 * pool kept across the batches of one campaign (starting generation processes costs more than a
 * small batch).
 */
function campaignExecutor(jobs: number): { execute: BatchExecutor; close(): void } {
  let pool: { digest: string; pool: GeneratorPool } | undefined;
  const temp = TempRoot.create();
  return {
    execute: async (c, seeds, signal) => {
      if (pool?.digest !== c.meta.digest) {
        pool?.pool.close();
        pool = {
          digest: c.meta.digest,
          pool: GeneratorPool.programs(jobs, c.meta.settings.policy, c.meta.settings.mode),
        };
      }
      const programs: ProgramReport[] = [];
      const confirmations: HangConfirmation[] = [];
      const s = c.meta.settings;
      const summary = await runCampaign(
        {
          configurations: c.configurations,
          limits: s.limits,
          policy: s.policy,
          mode: s.mode,
          jobs,
          seeds: seeds[Symbol.iterator](),
          signal,
          rerunFailures: s.rerun,
          pool: pool.pool,
          tempRoot: temp,
        },
        { onProgram: (r) => void programs.push(r), onConfirm: (h) => void confirmations.push(h) },
      );
      if (summary.stoppedBy === 'interrupted') throw new Error('worker stopped while running the batch');
      return {
        programs: programs.map(wireReport),
        confirmations: confirmations.map(wireConfirmation),
        tests: summary.tests,
      };
    },
    close: () => {
      pool?.pool.close();
      temp.dispose();
    },
  };
}

async function readMeta(redis: Redis): Promise<CampaignMeta | undefined> {
  const text = await redis.get(META_KEY);
  return text ? (JSON.parse(text) as CampaignMeta) : undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * Runs a worker until `signal` aborts (or `maxBatches` are done). Waits for a campaign when the
 * queue has none; rejects with a KilnError when this machine cannot run the campaign (then the
 * batch in hand, if any, goes back to the queue for other workers).
 */
export async function runWorker(opts: WorkerOptions): Promise<WorkerSummary> {
  const redis = await openRedis(opts.address);
  const id = opts.id ?? `${hostname()}/${process.pid}`;
  const resolve = opts.resolve ?? ((m: CampaignMeta) => resolveCampaign(m, opts.jobs));
  const own = opts.execute ? undefined : campaignExecutor(opts.jobs);
  const execute = opts.execute ?? own!.execute;
  const stop = new AbortController();
  opts.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  let campaign: WorkerCampaign | undefined;
  let fatal: unknown;
  let batches = 0;
  let programs = 0;
  let tests = 0;
  let worker: Worker<BatchData, BatchResult> | undefined;
  try {
    // A worker may start before its campaign: it waits for one to be published.
    let waiting = false;
    for (;;) {
      const meta = await readMeta(redis);
      if (meta) {
        campaign = await resolve(meta);
        opts.say(
          `kiln worker ${id}: campaign ${meta.owner} (${meta.settings.compilers.length} ` +
            `compilers, ${campaign.configurations.length} configurations), ${opts.jobs} jobs`,
        );
        break;
      }
      if (!waiting) opts.say(`kiln worker ${id}: waiting for a campaign on ${opts.address.display}`);
      waiting = true;
      await sleep(500, stop.signal);
      if (stop.signal.aborted) return { batches, programs, tests };
    }
    const lockMs = opts.lockMs ?? DEFAULT_LOCK_MS;
    const finished = new Promise<void>((done) => {
      const fail = (e: unknown): void => {
        fatal ??= e;
        stop.abort();
      };
      stop.signal.addEventListener('abort', () => done(), { once: true });
      worker = new Worker<BatchData, BatchResult>(
        QUEUE_NAME,
        async (job: Job<BatchData, BatchResult>) => {
          if (job.data.digest !== campaign!.meta.digest) {
            // The queue now belongs to a new campaign: this machine must qualify for it first.
            const meta = await readMeta(redis);
            if (!meta || meta.digest !== job.data.digest)
              throw new Error(`batch ${job.id} names settings ${job.data.digest}, which the queue no longer publishes`);
            try {
              campaign = await resolve(meta);
            } catch (e) {
              fail(e);
              throw e;
            }
          }
          const started = Date.now();
          const seedText =
            job.data.seeds.length > 1
              ? `seeds ${job.data.seeds[0]}..${job.data.seeds.at(-1)}`
              : `seed ${job.data.seeds[0]}`;
          if (opts.verbose !== false)
            opts.say(
              `kiln worker ${id}: batch ${job.id}: ${seedText} ` +
                `(attempt ${Math.max(job.attemptsStarted, job.attemptsMade + 1)})`,
            );
          const r = await execute(
            campaign!,
            job.data.seeds.map((s) => BigInt(s)),
            stop.signal,
          );
          batches++;
          programs += r.programs.length;
          tests += r.tests;
          const result: BatchResult = {
            digest: job.data.digest,
            worker: {
              id,
              kiln: campaign!.meta.kiln,
              compilers: campaign!.configurations
                .map((c) => c.compiler)
                .filter((c, i, a) => a.indexOf(c) === i)
                .map((c) => ({ name: c.name, version: c.version })),
            },
            ...r,
            elapsedMs: Date.now() - started,
          };
          if (opts.verbose !== false)
            opts.say(
              `kiln worker ${id}: batch ${job.id}: done, ${r.programs.length} programs, ${r.tests} tests ` +
                `in ${((Date.now() - started) / 1000).toFixed(1)} s`,
            );
          if (opts.maxBatches !== undefined && batches >= opts.maxBatches) setImmediate(() => stop.abort());
          return result;
        },
        {
          connection: connectionOptions(opts.address),
          concurrency: 1,
          lockDuration: lockMs,
          stalledInterval: Math.max(1_000, Math.floor(lockMs / 3)),
          // A batch whose workers keep dying is retried a few times, then fails (the coordinator says so).
          maxStalledCount: 3,
        },
      );
      // Connection errors: ioredis reconnects; a lost lock shows as a stalled batch.
      worker.on('error', () => undefined);
    });
    await finished;
  } finally {
    // Stopped: the batch in hand failed its attempt and goes back to the queue. Refused: it is
    // abandoned at once; its lock expires and another worker takes it.
    await worker?.close(fatal !== undefined).catch(() => undefined);
    own?.close();
    redis.disconnect();
  }
  if (fatal !== undefined) throw fatal;
  return { batches, programs, tests };
}
