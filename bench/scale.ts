// Scaling of distributed campaigns (kiln fuzz --queue + kiln worker), simulated on one machine.
//
//   npm run bench:scale -- [--workers 1,2,4,8,16,32] [--sleep 100] [--seconds 30] [--opts '-O0;-O1;-O2;-Os;-O3']
//                          [--ceiling-workers 4] [--ceiling-programs 1500] [--real 30]
//   npm run bench:scale -- --smoke     (1 worker sleeping 10 ms per test for 3 s, a 40-test ceiling run, no real worker)
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
//   The ideal is N × 1000 / sleep; efficiency is steady / ideal.
// - The coordinator's ceiling: workers whose tests take no time at all (sleep 0), so results
//   arrive as fast as workers and Redis can hand them over, for --ceiling-programs programs; the
//   coordinator records every program in its SQLite store as in a real campaign (steady and session
//   rates as above). On a small shared machine the workers compete with the coordinator for the
//   CPU, so this is a lower bound.
// - One real worker's rate, for comparison (unless --real 0): a local `kiln fuzz -j 1` with gcc at
//   the default option sets and program size, for --real seconds, timed the same way.
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
const counts = arg('workers', smoke ? '1' : '1,2,4,8,16,32').split(',').map(Number);
const sleepMs = Number(arg('sleep', smoke ? '10' : '100'));
const seconds = Number(arg('seconds', smoke ? '3' : '30'));
const ceilingWorkers = Number(arg('ceiling-workers', smoke ? '1' : '4'));
const ceilingPrograms = Number(arg('ceiling-programs', smoke ? '8' : '1500'));
const opts = arg('opts', '-O0;-O1;-O2;-Os;-O3');
const configsPerProgram = opts.split(';').length;
const realSeconds = Number(arg('real', smoke ? '0' : '30'));

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
  return new Promise((resolve) => child.on('close', (status) => resolve({ wallMs: performance.now() - t0, status, stdout, stderr })));
}

/** Starts a sleeping worker; resolves once it is connected and waits for (or has joined) a campaign. */
function startWorker(url: string, ms: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', TSX, join(ROOT, 'bench/lib/sleep-worker.ts'), url, String(ms)], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
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
    const times = (db.prepare('SELECT finished_at AS t FROM seeds ORDER BY finished_at').all() as { t: string }[]).map((r) => Date.parse(r.t));
    if (times.length <= skip + 1) throw new Error(`only ${times.length} programs recorded: run longer (--seconds) for a steady rate`);
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
  const r = await run([...kiln, 'fuzz', '--queue', url, '--compilers', 'gcc', '--opts', opts, ...limit, '--seed-start', '1', '--out', out]);
  if (r.status !== 0) throw new Error(`coordinator failed (${r.status}): ${r.stderr}`);
  const m = /this session (\d+) programs, (\d+) tests in ([\d.]+) s/.exec(r.stdout);
  if (!m) throw new Error(`unexpected coordinator summary: ${r.stdout}`);
  const tests = Number(m[2]);
  return { tests, steady: steadyRate(out, workerCount * DEFAULT_BATCH), session: tests / Number(m[3]), process: tests / (r.wallMs / 1000) };
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
const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', work, '--daemonize', 'no'], { stdio: 'ignore' });
const workers: ChildProcess[] = [];
let client: Redis | undefined;
try {
  const url = `redis://127.0.0.1:${redisPort}`;
  for (let i = 0; ; i++) {
    if (i > 200 || redis.exitCode !== null) throw new Error('redis-server did not start (is it installed? npm run tools)');
    const c = new Redis({ host: '127.0.0.1', port: redisPort, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 1 });
    c.on('error', () => undefined);
    if (await c.connect().then(() => true, () => false)) {
      client = c;
      break;
    }
    c.disconnect();
    await pause(50);
  }
  console.log(
    `bench:scale: simulated tests sleep ${sleepMs} ms; ${configsPerProgram} configurations (gcc ${opts}) per program; batches of ${DEFAULT_BATCH} seeds; ` +
      `${seconds} s per point; rates in tests recorded per second (steady: after every worker's first batch, to the last result; session: the coordinator's own elapsed time; process: coordinator spawn to exit)`,
  );
  console.log('workers  tests  ideal/s  steady/s  session/s  process/s  efficiency(steady/ideal)');
  for (const [i, n] of counts.entries()) {
    while (workers.length < n) workers.push(await startWorker(url, sleepMs));
    const ideal = (n * 1000) / sleepMs;
    const r = await coordinate(url, ['--time', `${seconds}s`], join(work, `out-${i}-${n}`), n);
    console.log(
      `${String(n).padStart(7)}  ${String(r.tests).padStart(5)}  ${ideal.toFixed(1).padStart(7)}  ${r.steady.toFixed(1).padStart(8)}  ${r.session.toFixed(1).padStart(9)}  ${r.process.toFixed(1).padStart(9)}  ${((100 * r.steady) / ideal).toFixed(0).padStart(5)}%`,
    );
    await drain(client);
  }
  await stopAll(workers);

  for (let i = 0; i < ceilingWorkers; i++) workers.push(await startWorker(url, 0));
  const c = await coordinate(url, ['--tests', String(ceilingPrograms)], join(work, 'out-ceiling'), ceilingWorkers);
  console.log(
    `coordinator ceiling: ${c.tests} tests from ${ceilingWorkers} workers whose tests take no time: ${Number.isNaN(c.steady) ? 'no window for a' : c.steady.toFixed(0)} tests/s steady, ${c.session.toFixed(0)} in session, ${c.process.toFixed(0)} whole process (each program recorded in the store)`,
  );
  await stopAll(workers);

  if (realSeconds > 0) {
    const r = await run([...kiln, 'fuzz', '-j', '1', '--compilers', 'gcc', '--time', `${realSeconds}s`, '--out', join(work, 'out-real')]);
    const m = /this session (\d+) programs, (\d+) tests in ([\d.]+) s/.exec(r.stdout);
    if (r.status !== 0 || !m) throw new Error(`the real campaign failed (${r.status}): ${r.stderr}`);
    const rate = Number(m[2]) / Number(m[3]);
    console.log(`one real worker (kiln fuzz -j 1, gcc × 5 option sets, medium programs, ${realSeconds} s): ${m[1]} programs, ${m[2]} tests, ${rate.toFixed(2)} tests/s in session`);
    console.log(`coordinator ceiling / one real worker: ${(c.steady / rate).toFixed(0)}× (steady), ${(c.session / rate).toFixed(0)}× (session)`);
  }
} finally {
  client?.disconnect();
  await stopAll(workers);
  redis.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}
