// The queue runner (`kiln fuzz --queue URL`): the campaign session on this machine hands it seeds;
// it enqueues them in batches for `kiln worker` processes anywhere, and feeds the results back to
// the session, which records them exactly as a local campaign's.
import { Queue, type Job, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { errQueueBusy } from '../diag/errors.js';
import {
  RunState,
  type CampaignHooks,
  type CampaignRunner,
  type CampaignSummary,
  type ProgramReport,
  type RunnerInput,
} from '../harness/runner.js';
import type { Configuration } from '../harness/matrix.js';
import {
  campaignConfirmation,
  campaignReport,
  kilnVersion,
  META_KEY,
  QUEUE_NAME,
  settingsDigest,
  type BatchData,
  type BatchResult,
  type CampaignMeta,
  type WireConfirmation,
  type WireSettings,
} from './protocol.js';
import { connectionOptions, openRedis, type QueueAddress } from './redis.js';

/** Seeds per batch: small, so a killed worker costs little, large enough that Redis round trips do not count. */
export const DEFAULT_BATCH = 4;
/** Batches kept in the queue at least (see `depth` in coordinate). */
const DEFAULT_AHEAD = 64;
/** Attempts of a batch whose worker stopped or failed before it is reported as failed. */
const ATTEMPTS = 5;
/** Completed batches read per poll, and recorded in one store transaction. */
const READ_PAGE = 200;
/** A worker that returned a result this recently counts towards the queue's depth (ms). */
const LIVE_MS = 60_000;
/** How often the coordinator looks for results when none came (ms). */
const POLL_MS = 100;
/** After this long without a result, the coordinator checks every awaited seed is still in the queue (ms). */
const RECONCILE_MS = 10_000;
/** How often per-worker rates are printed (ms). */
const RATES_EVERY_MS = 30_000;

/** Everything the queue runner needs from the session's settings. */
export interface QueueRunnerSettings {
  readonly address: QueueAddress;
  readonly configurations: readonly Configuration[];
  readonly settings: WireSettings;
  /** Which campaign this is (host, output folder, campaign id): a queue holds one campaign. */
  readonly owner: (campaignId: number) => string;
  /** Seeds per batch (default {@link DEFAULT_BATCH}). */
  readonly batch?: number;
  /** Seeds waiting or running in the queue at least (default 64 batches; more with more workers: two batches each). */
  readonly ahead?: number;
  /** How often worker rates are printed (default 30 s). */
  readonly ratesEveryMs?: number;
}

/**
 * Checks, before a session writes anything, that the queue is free for this campaign: empty, or
 * holding this very campaign (a resume). Throws KILN_QUEUE_UNREACHABLE or KILN_QUEUE_BUSY.
 */
export async function checkQueueFree(address: QueueAddress, owner: string | undefined): Promise<void> {
  const redis = await openRedis(address);
  try {
    const meta = await readMeta(redis);
    if (meta && meta.owner !== owner) throw errQueueBusy(address.display, meta.owner);
  } finally {
    redis.disconnect();
  }
}

async function readMeta(redis: Redis): Promise<CampaignMeta | undefined> {
  const text = await redis.get(META_KEY);
  return text ? (JSON.parse(text) as CampaignMeta) : undefined;
}

/** Per-worker counts for the progress display. */
interface WorkerRate {
  tests: number;
  busyMs: number;
  firstAt: number;
  lastAt: number;
}

/** The runner of a campaign whose tests run on `kiln worker` processes through a Redis queue. */
export function queueRunner(q: QueueRunnerSettings): CampaignRunner {
  const batch = q.batch ?? DEFAULT_BATCH;
  return {
    description: `queue ${q.address.display}, batches of ${batch} seeds`,
    checksCompilersHere: false,
    // The queue holds this many seeds anyway: claiming them one commit per 32 cost a tenth of a core at 1,000 tests/s.
    seedBlock: q.ahead ?? DEFAULT_AHEAD * batch,
    run: (input, hooks) => coordinate(q, batch, input, hooks),
  };
}

async function coordinate(
  q: QueueRunnerSettings,
  batchSize: number,
  input: RunnerInput,
  hooks: CampaignHooks,
): Promise<CampaignSummary> {
  if (input.campaignId === undefined) throw new Error('queueRunner: the session must name its campaign');
  const kiln = kilnVersion();
  const digest = settingsDigest(q.settings, kiln);
  const owner = q.owner(input.campaignId);
  const meta: CampaignMeta = { owner, digest, kiln, settings: q.settings };
  const redis = await openRedis(q.address);
  const queue = new Queue<BatchData, BatchResult>(QUEUE_NAME, { connection: connectionOptions(q.address) });
  queue.on('error', () => undefined); // ioredis reconnects; commands wait for it
  const bySlug = new Map(q.configurations.map((c) => [c.slug, c]));
  const say = input.say ?? (() => undefined);
  const ahead = q.ahead ?? DEFAULT_AHEAD * batchSize;
  const rates = new Map<string, WorkerRate>();
  // Ctrl-C and the time limit end the loop below at its next turn.
  const state = new RunState(input);
  try {
    // Claim the queue (atomically: two coordinators cannot both take an empty one).
    const set = await redis.set(META_KEY, JSON.stringify(meta), 'NX');
    if (set === null) {
      const held = await readMeta(redis);
      if (held && held.owner !== owner) throw errQueueBusy(q.address.display, held.owner);
      // This campaign's queue, from an earlier session: its settings are the stored ones again.
      await redis.set(META_KEY, JSON.stringify(meta));
    }
    await queue.resume();

    // Seeds already in the queue (an earlier session's batches) are awaited, not enqueued again.
    const outstanding = new Set<string>();
    for (const job of await queue.getJobs([
      'waiting',
      'active',
      'delayed',
      'prioritized',
      'completed',
      'failed',
      'waiting-children',
    ])) {
      if (!job?.data) continue;
      for (const s of job.data.seeds) if (!input.recorded?.(BigInt(s))) outstanding.add(s);
    }
    const inQueue = outstanding.size;
    if (inQueue > 0)
      say(`kiln fuzz: ${inQueue} seeds of this campaign are already in the queue; their results are collected first`);
    state.startedPrograms = outstanding.size;
    let seedsLeft = true;
    let lastRates = Date.now();

    const batchOptions = (seeds: readonly string[]): JobsOptions => ({
      jobId: `${digest}-${seeds[0]}-${seeds.length}`,
      attempts: ATTEMPTS,
      backoff: { type: 'fixed', delay: 1_000 },
      removeOnFail: false,
      removeOnComplete: false,
    });
    const addBatch = (seeds: readonly string[]): Promise<unknown> =>
      queue.add('batch', { digest, seeds: [...seeds] }, batchOptions(seeds));

    /**
     * Re-enqueues awaited seeds that no job holds any more: a Redis restarted without its last
     * writes (or flushed by hand) must not leave the coordinator waiting for ever.
     */
    const reconcile = async (): Promise<void> => {
      const held = new Set<string>();
      for (const job of await queue.getJobs([
        'waiting',
        'active',
        'delayed',
        'prioritized',
        'completed',
        'failed',
        'waiting-children',
      ]))
        for (const s of job?.data?.seeds ?? []) held.add(s);
      const lost = [...outstanding].filter((s) => !held.has(s) && !input.recorded?.(BigInt(s)));
      if (lost.length === 0) return;
      say(
        `kiln fuzz: ${lost.length} awaited seeds are in no batch of the queue any more (was Redis restarted ` +
          `without persistence?); enqueued again`,
      );
      for (let i = 0; i < lost.length; i += batchSize) await addBatch(lost.slice(i, i + batchSize));
    };
    let lastResult = Date.now();

    /**
     * Seeds kept in the queue (waiting, running, or done and not yet collected): at least `ahead`,
     * and two batches per worker seen lately (one running, one waiting), so a cluster larger than
     * the default depth is not starved while the coordinator records a page of results.
     */
    const depth = (): number => {
      const since = Date.now() - LIVE_MS;
      let live = 0;
      for (const r of rates.values()) if (r.lastAt >= since) live++;
      return Math.max(ahead, 2 * live * batchSize);
    };

    /** Tops the queue up to {@link depth}, all new batches in one round trip. */
    const enqueue = async (): Promise<void> => {
      const batches: string[][] = [];
      const target = depth();
      while (!state.stoppedBy && seedsLeft && !state.limitReached() && outstanding.size < target) {
        const seeds: string[] = [];
        while (seeds.length < batchSize && !state.limitReached()) {
          const n = input.seeds.next();
          if (n.done) {
            seedsLeft = false;
            break;
          }
          const s = String(n.value);
          // A seed claimed earlier and still in the queue comes back with its batch.
          if (outstanding.has(s)) continue;
          seeds.push(s);
          outstanding.add(s);
          state.startedPrograms++;
        }
        if (seeds.length === 0) break;
        batches.push(seeds);
      }
      if (batches.length > 0)
        await queue.addBulk(
          batches.map((seeds) => ({ name: 'batch', data: { digest, seeds }, opts: batchOptions(seeds) })),
        );
    };

    /**
     * Records a page of completed batches through the session's hooks in one store transaction
     * (one commit for all their programs), then removes them from Redis: a coordinator killed
     * before the commit collects them again on --resume, one killed after it finds their seeds
     * recorded and drops them.
     */
    const collect = async (jobs: readonly Job<BatchData, BatchResult>[]): Promise<void> => {
      const reports: ProgramReport[] = [];
      const confirms: WireConfirmation[] = [];
      const taken = new Set<string>();
      const now = Date.now();
      for (const job of jobs) {
        const r = job.returnvalue;
        if (r && r.digest === digest) {
          for (const w of r.programs) {
            // A batch done twice (its worker died after finishing it, or its seeds were enqueued
            // again) or an earlier session's result: once only.
            if (!outstanding.has(w.seed) || taken.has(w.seed) || input.recorded?.(BigInt(w.seed))) continue;
            taken.add(w.seed);
            reports.push(campaignReport(w, bySlug, q.settings.policy, q.settings.mode));
            confirms.push(...r.confirmations.filter((c) => c.seed === w.seed));
          }
          const rate = rates.get(r.worker.id) ?? { tests: 0, busyMs: 0, firstAt: now - r.elapsedMs, lastAt: now };
          rate.tests += r.tests;
          rate.busyMs += r.elapsedMs;
          rate.lastAt = now;
          rates.set(r.worker.id, rate);
        } else if (r) {
          say(`kiln fuzz: dropped batch ${job.id} of other settings (${r.digest}) from worker ${r.worker.id}`);
        }
      }
      for (const report of reports) for (const x of report.results) hooks.onTest?.(x.result);
      if (hooks.onPrograms) {
        if (reports.length > 0) await hooks.onPrograms(reports);
      } else {
        for (const report of reports) await hooks.onProgram(report);
      }
      for (const report of reports) {
        state.programs++;
        state.tests += report.results.length;
        state.reruns += report.results.filter((x) => x.rerun).length;
      }
      for (const c of confirms) {
        state.confirmations++;
        await hooks.onConfirm?.(campaignConfirmation(c, bySlug));
      }
      // Any seed of a batch the worker did not return (it stopped mid-batch) stays a gap for --resume.
      for (const job of jobs) for (const s of job.data.seeds) outstanding.delete(s);
      await Promise.all(jobs.map((job) => job.remove()));
    };

    for (;;) {
      await enqueue();
      let worked = false;
      if (!state.stoppedBy) {
        // Oldest first, so seeds are recorded roughly in the order they were handed out.
        const done = (await queue.getJobs(['completed'], 0, READ_PAGE - 1, true)).filter(
          (j): j is Job<BatchData, BatchResult> => Boolean(j),
        );
        if (done.length > 0) {
          await collect(done);
          worked = true;
        }
        for (const job of await queue.getFailed(0, READ_PAGE - 1)) {
          if (!job) continue;
          say(
            `kiln fuzz: batch of seeds ${job.data.seeds.join(', ')} failed ${job.attemptsMade} times ` +
              `(last: ${(job.failedReason ?? '').split('\n')[0]}); its seeds run again on --resume`,
          );
          for (const s of job.data.seeds) {
            outstanding.delete(s);
            state.startedPrograms--;
          }
          await job.remove();
          worked = true;
        }
      }
      if (Date.now() - lastRates >= (q.ratesEveryMs ?? RATES_EVERY_MS) && rates.size > 0) {
        lastRates = Date.now();
        say(describeRates(rates));
      }
      if (state.stoppedBy) break;
      if (outstanding.size === 0 && (!seedsLeft || state.limitReached())) {
        state.end(seedsLeft ? 'tests' : 'seeds');
        break;
      }
      if (worked) lastResult = Date.now();
      else if (Date.now() - lastResult >= RECONCILE_MS && outstanding.size > 0) {
        lastResult = Date.now();
        await reconcile();
      }
      if (!worked) await new Promise((r) => setTimeout(r, POLL_MS));
    }
    if (rates.size > 0) say(describeRates(rates));
    if (state.stoppedBy === 'tests' || state.stoppedBy === 'seeds') {
      // The campaign ran its course: the queue is free for the next one.
      await queue.obliterate({ force: true });
      await redis.del(META_KEY);
    } else {
      // Stopped early: workers finish the batches they hold, and the rest waits for --resume.
      await queue.pause();
    }
    return state.summary();
  } finally {
    state.dispose();
    await queue.close().catch(() => undefined);
    redis.disconnect();
  }
}

/** One line with every worker's rate: tests per second of busy time, and tests in all. */
function describeRates(rates: ReadonlyMap<string, WorkerRate>): string {
  const parts = [...rates].map(
    ([id, r]) => `${id} ${(r.tests / Math.max(r.busyMs / 1000, 1e-3)).toFixed(1)} tests/s (${r.tests})`,
  );
  return `kiln fuzz: ${rates.size} workers: ${parts.join(', ')}`;
}
