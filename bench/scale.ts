// Scaling of distributed campaigns (kiln fuzz --queue + kiln worker), simulated on one machine.
//
//   npm run bench:scale -- [--workers 1,2,4,8,16,32] [--sleep 100] [--seconds 30] [--opts '-O0;-O1;-O2;-Os;-O3']
//                          [--ceiling-workers 4] [--ceiling-programs 1500] [--real-programs 12] [--repeat 3]
//   npm run bench:scale -- --smoke     (1 worker sleeping 10 ms per test for 3 s, an 8-program ceiling run,
//                                       no real worker, once)
//
// What is measured:
// - Throughput with N worker processes: each worker takes batches from a private Redis like
//   `kiln worker`, but a test only sleeps (--sleep ms per (program, configuration) test; nothing is
//   generated or compiled: bench/lib/sleep-worker.ts), so dozens of workers fit on a small machine
//   and the figures measure the queue and the coordinator. Workers are started (and have joined
//   Redis) before the coordinator, so their start-up is never timed. Each point runs a real
//   coordinator (`kiln fuzz --queue --time`, gcc at --opts, by default the five option sets of a
//   default campaign, so a program is five tests as in a real one) for --seconds; the queue is
//   emptied between points. Three rates per point, all in tests recorded in the coordinator's
//   store per second:
//     steady     from the moment every worker has returned its first batch (the first N batches
//                recorded) to the last result: the cluster's sustained rate, start and stop excluded;
//     session    the coordinator's own figure (its session's elapsed time, which includes the wait
//                for the first results and the batches abandoned in flight at the --time stop);
//     process    spawn to exit of the coordinator (tsx start-up and the end-of-session report too).
//   The ideal is N × 1000 / sleep; efficiency is steady / ideal. The simulated results are the size
//   of real ones (the sandbox's argv of each compile and run, the checksum line), so the
//   coordinator decodes and stores as much per test as in a real campaign.
// - Every measurement is repeated (--repeat, default 3): the tables show the median and the range.
// - The coordinator's ceiling: workers whose tests take no time at all (sleep 0), so results
//   arrive as fast as workers and Redis can hand them over, for --ceiling-programs programs; the
//   coordinator records every program in its SQLite store as in a real campaign (steady and session
//   rates as above). On a small shared machine the workers compete with the coordinator for the
//   CPU, so this is a lower bound.
// - A point near the ceiling: as many workers as the ceiling run, each test sleeping so that the
//   ideal is 80% of the measured ceiling. Where the coordinator falls behind or loses results, it
//   shows here first: the efficiency, and a check that every program of the run was recorded once.
// - One real worker's rate, for comparison (unless --real-programs 0): a real `kiln worker -j 1` (gcc
//   at the same option sets, default program size) under the same coordinator, for --real-programs
//   programs (a count, not a time: a batch of real programs can take a minute on a loaded machine), its
//   steady rate measured from the store exactly as the ceiling's: the ceiling divided by it says how
//   many such workers one coordinator keeps up with.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { DEFAULT_BATCH } from '../src/queue/coordinator.js';
import { QUEUE_NAME } from '../src/queue/protocol.js';
import { kilnEntry, ROOT } from './lib/kiln.js';

const smoke = process.argv.includes('--smoke');
function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const counts = arg('workers', smoke ? '1' : '1,2,4,8,16,32')
  .split(',')
  .map(Number);
const sleepMs = Number(arg('sleep', smoke ? '10' : '100'));
const seconds = Number(arg('seconds', smoke ? '3' : '30'));
const ceilingWorkers = Number(arg('ceiling-workers', smoke ? '1' : '4'));
const ceilingPrograms = Number(arg('ceiling-programs', smoke ? '8' : '1500'));
const opts = arg('opts', '-O0;-O1;-O2;-Os;-O3');
const configsPerProgram = opts.split(';').length;
const realPrograms = Number(arg('real-programs', smoke ? '0' : '12'));
const repeat = Number(arg('repeat', smoke ? '1' : '3'));

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const work = mkdtempSync(join(tmpdir(), 'kiln-bench-scale-'));
const kiln = kilnEntry(work, true);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Run {
  wallMs: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(args: readonly string[]): Promise<Run> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) =>
    child.on('close', (status) => resolve({ wallMs: performance.now() - t0, status, stdout, stderr })),
  );
}

/** Starts a sleeping worker; resolves once it is connected and waits for (or has joined) a campaign. */
function startWorker(url: string, ms: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', TSX, join(ROOT, 'bench/lib/sleep-worker.ts'), url, String(ms)], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (/waiting for a campaign|: campaign /.test(err)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`a worker exited (${code}) before joining: ${err}`)));
  });
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.splice(0).map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.kill('SIGKILL');
        }),
    ),
  );
}

/** Rates of one coordinator run, in tests per second. */
interface Rates {
  tests: number;
  programs: number;
  steady: number;
  session: number;
  process: number;
}

/**
 * The steady rate from the store: seeds recorded after the first `skip` (every worker's first
 * batch) up to the last, over the time between those two moments.
 */
function steadyRate(out: string, skip: number): number {
  const db = new Database(join(out, 'kiln.db'), { readonly: true });
  try {
    const times = (db.prepare('SELECT finished_at AS t FROM seeds ORDER BY finished_at').all() as { t: string }[]).map(
      (r) => Date.parse(r.t),
    );
    if (times.length <= skip + 1)
      throw new Error(`only ${times.length} programs recorded: run longer (--seconds) for a steady rate`);
    const from = times[skip - 1] ?? times[0]!;
    const to = times.at(-1)!;
    const n = times.filter((t) => t > from).length;
    // Every result recorded at once (a tiny run): no window to measure.
    return n === 0 || to === from ? NaN : (n * configsPerProgram) / ((to - from) / 1000);
  } finally {
    db.close();
  }
}

/** Runs one coordinator (`limit`: --time or --tests); returns its rates. */
async function coordinate(url: string, limit: readonly string[], out: string, workerCount: number): Promise<Rates> {
  const r = await run([
    ...kiln,
    'fuzz',
    '--queue',
    url,
    '--compilers',
    'gcc',
    '--opts',
    opts,
    ...limit,
    '--seed-start',
    '1',
    '--out',
    out,
  ]);
  if (r.status !== 0) throw new Error(`coordinator failed (${r.status}): ${r.stderr}`);
  const m = /this session (\d+) programs, (\d+) tests in ([\d.]+) s/.exec(r.stdout);
  if (!m) throw new Error(`unexpected coordinator summary: ${r.stdout}`);
  const tests = Number(m[2]);
  return {
    tests,
    programs: Number(m[1]),
    steady: steadyRate(out, workerCount * DEFAULT_BATCH),
    session: tests / Number(m[3]),
    process: tests / (r.wallMs / 1000),
  };
}

/** Runs `measure` `repeat` times (each on a fresh output folder and an emptied queue). */
async function repeated(client: Redis, name: string, measure: (out: string) => Promise<Rates>): Promise<Rates[]> {
  const runs: Rates[] = [];
  for (let k = 0; k < repeat; k++) {
    runs.push(await measure(join(work, `out-${name}-${k}`)));
    await drain(client);
  }
  return runs;
}

/** The median of some figures (NaN, a run with no window, sorts last). */
function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => (Number.isNaN(a) ? 1 : Number.isNaN(b) ? -1 : a - b));
  return s[(s.length - 1) >> 1]!;
}

/** ` (min–max)` of the steady rates when measured more than once. */
function range(runs: readonly Rates[]): string {
  if (runs.length < 2) return '';
  const xs = runs.map((r) => r.steady).filter((x) => !Number.isNaN(x));
  return xs.length ? ` (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})` : '';
}

/** A problem with what a run recorded: seeds missing or recorded twice, among those it reported. */
function recordedOnce(out: string, programs: number): string | undefined {
  const db = new Database(join(out, 'kiln.db'), { readonly: true });
  try {
    const r = db.prepare('SELECT COUNT(*) AS n, COUNT(DISTINCT seed) AS d FROM seeds').get() as {
      n: number;
      d: number;
    };
    if (r.n !== programs || r.d !== programs)
      return `the store holds ${r.n} programs (${r.d} distinct seeds), the coordinator reported ${programs}`;
    return undefined;
  } finally {
    db.close();
  }
}

/** Waits until no worker holds a batch, then empties the database: the next point starts on a free queue. */
async function drain(client: Redis): Promise<void> {
  for (let i = 0; (await client.llen(`bull:${QUEUE_NAME}:active`)) > 0; i++) {
    if (i > 600) throw new Error('workers still hold batches a minute after the coordinator stopped');
    await pause(100);
  }
  await client.flushdb();
}

const redisPort = await freePort();
const redis = spawn(
  'redis-server',
  [
    '--port',
    String(redisPort),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    work,
    '--daemonize',
    'no',
  ],
  { stdio: 'ignore' },
);
const workers: ChildProcess[] = [];
let client: Redis | undefined;
try {
  const url = `redis://127.0.0.1:${redisPort}`;
  for (let i = 0; ; i++) {
    if (i > 200 || redis.exitCode !== null)
      throw new Error('redis-server did not start (is it installed? npm run tools)');
    const c = new Redis({
      host: '127.0.0.1',
      port: redisPort,
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 1,
    });
    c.on('error', () => undefined);
    if (
      await c.connect().then(
        () => true,
        () => false,
      )
    ) {
      client = c;
      break;
    }
    c.disconnect();
    await pause(50);
  }
  console.log(
    `bench:scale: simulated tests sleep ${sleepMs} ms; ${configsPerProgram} configurations (gcc ${opts}) ` +
      `per program; batches of ${DEFAULT_BATCH} seeds; ` +
      `${seconds} s per point; rates in tests recorded per second (steady: after every worker's first ` +
      `batch, to the last result; session: the coordinator's own elapsed time; process: coordinator spawn to exit)`,
  );
  console.log(
    `workers  tests  ideal/s  steady/s  session/s  process/s  ` +
      `efficiency(steady/ideal)${repeat > 1 ? `   medians of ${repeat} runs; steady range` : ''}`,
  );
  const row = (n: number, ideal: number, runs: readonly Rates[]): string => {
    const med = (f: (r: Rates) => number): number => median(runs.map(f));
    const steady = med((r) => r.steady);
    const cells = [
      String(n).padStart(7),
      String(med((r) => r.tests)).padStart(5),
      ideal.toFixed(1).padStart(7),
      steady.toFixed(1).padStart(8),
      med((r) => r.session)
        .toFixed(1)
        .padStart(9),
      med((r) => r.process)
        .toFixed(1)
        .padStart(9),
      `${((100 * steady) / ideal).toFixed(0).padStart(5)}%${range(runs)}`,
    ];
    return cells.join('  ');
  };
  for (const [i, n] of counts.entries()) {
    while (workers.length < n) workers.push(await startWorker(url, sleepMs));
    const runs = await repeated(client, `${i}-${n}`, (out) => coordinate(url, ['--time', `${seconds}s`], out, n));
    console.log(row(n, (n * 1000) / sleepMs, runs));
  }
  await stopAll(workers);

  for (let i = 0; i < ceilingWorkers; i++) workers.push(await startWorker(url, 0));
  const ceiling = await repeated(client, 'ceiling', (out) =>
    coordinate(url, ['--tests', String(ceilingPrograms)], out, ceilingWorkers),
  );
  const c = {
    tests: median(ceiling.map((r) => r.tests)),
    steady: median(ceiling.map((r) => r.steady)),
    session: median(ceiling.map((r) => r.session)),
    process: median(ceiling.map((r) => r.process)),
  };
  console.log(
    `coordinator ceiling: ${c.tests} tests from ${ceilingWorkers} workers whose tests take no ` +
      `time: ${Number.isNaN(c.steady) ? 'no window for a' : c.steady.toFixed(0)} tests/s ` +
      `steady, ${c.session.toFixed(0)} in session, ${c.process.toFixed(0)} whole process (each program ` +
      `recorded in the store)${repeat > 1 ? `; medians of ${repeat} runs, steady${range(ceiling)}` : ''}`,
  );
  await stopAll(workers);

  // Near the ceiling: the same workers, each test sleeping so that the ideal is 80% of it (of the
  // session rate when a run too small for a steady window, a smoke run, has none).
  const ceilingRate = Number.isNaN(c.steady) ? c.session : c.steady;
  if (ceilingRate > 0) {
    const nearSleep = Math.max(1, Math.round((ceilingWorkers * 1000) / (0.8 * ceilingRate)));
    for (let i = 0; i < ceilingWorkers; i++) workers.push(await startWorker(url, nearSleep));
    const problems: string[] = [];
    const near = await repeated(client, 'near', async (out) => {
      const r = await coordinate(url, ['--time', `${seconds}s`], out, ceilingWorkers);
      const p = recordedOnce(out, r.programs);
      if (p) problems.push(p);
      return r;
    });
    console.log(
      `near the ceiling: ${ceilingWorkers} workers, tests sleeping ${nearSleep} ms ` +
        `(ideal ${((ceilingWorkers * 1000) / nearSleep).toFixed(0)} tests/s, about 80% of the ceiling):`,
    );
    console.log(row(ceilingWorkers, (ceilingWorkers * 1000) / nearSleep, near));
    console.log(
      problems.length
        ? `near the ceiling, results lost or doubled: ${problems.join('; ')}`
        : 'near the ceiling: every program reported was recorded once',
    );
    await stopAll(workers);
  }

  if (realPrograms > 0) {
    // One real `kiln worker -j 1`, measured like the ceiling: the coordinator's store, from its first batch to its last
    // result.
    const real = await repeated(client, 'real', async (out) => {
      const w = spawn(process.execPath, [...kiln, 'worker', '--queue', url, '-j', '1', '--quiet'], {
        cwd: ROOT,
        stdio: 'ignore',
      });
      workers.push(w);
      try {
        return await coordinate(url, ['--tests', String(realPrograms)], out, 1);
      } finally {
        await stopAll(workers);
      }
    });
    const rate = median(real.map((r) => r.steady));
    const steadies = real.map((r) => r.steady);
    const spread =
      repeat > 1
        ? ` (median of ${repeat}; ${Math.min(...steadies).toFixed(2)}–${Math.max(...steadies).toFixed(2)})`
        : '';
    console.log(
      `one real worker (kiln worker -j 1, gcc × ${configsPerProgram} option sets, default ` +
        `programs, ${realPrograms} programs per run): ${rate.toFixed(2)} tests/s steady${spread}`,
    );
    console.log(
      `coordinator ceiling / one real worker, both steady rates from the store: ${(c.steady / rate).toFixed(0)}×`,
    );
  }
} finally {
  client?.disconnect();
  await stopAll(workers);
  redis.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}
