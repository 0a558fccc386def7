// Scaling of distributed campaigns (kiln fuzz --queue + kiln worker), simulated on one machine.
//
//   npm run bench:scale -- [--workers 1,2,4,8,16,32] [--sleep 100] [--seconds 15] [--opts '-O0;-O1;-O2;-Os;-O3']
//                          [--ceiling-workers 8] [--ceiling-programs 800] [--real 30]
//   npm run bench:scale -- --smoke     (1 worker for about 1 s, a 40-test ceiling run, no real worker)
//
// What is measured:
// - Throughput with N worker processes: each worker takes batches from a private Redis like
//   `kiln worker`, but a test only sleeps (--sleep ms per (program, configuration) test; nothing is
//   generated or compiled: bench/lib/sleep-worker.ts), so dozens of workers fit on a small machine
//   and the figures measure the queue and the coordinator. Each point runs a real coordinator
//   (`kiln fuzz --queue`, gcc at --opts, by default the five option sets of a default campaign,
//   so a program is five tests as in a real one) for a program count that would take the workers
//   about --seconds at their ideal rate, N × 1000 / sleep tests/s. The coordinator is timed from
//   outside, spawn to exit (start-up included), and its own "in X s" (session only) is shown too.
// - The coordinator's ceiling: workers whose tests take no time at all (sleep 0), so results
//   arrive as fast as workers and Redis can hand them over; the coordinator records every program
//   in its SQLite store as in a real campaign. On a small shared machine the workers compete with
//   the coordinator for the CPU, so this is a lower bound.
// - One real worker's rate, for comparison (unless --real 0): a local `kiln fuzz -j 1` with gcc at
//   the default option sets and program size, for --real seconds, timed the same way.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { kilnEntry, ROOT } from './lib/kiln.js';

const smoke = process.argv.includes('--smoke');
function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}
const counts = arg('workers', smoke ? '1' : '1,2,4,8,16,32').split(',').map(Number);
const sleepMs = Number(arg('sleep', '100'));
const seconds = Number(arg('seconds', smoke ? '1' : '15'));
const ceilingWorkers = Number(arg('ceiling-workers', smoke ? '1' : '8'));
const ceilingPrograms = Number(arg('ceiling-programs', smoke ? '10' : '800'));
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

function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => (s.destroy(), resolve(d.toString().startsWith('+PONG'))));
    s.once('error', () => resolve(false));
  });
}

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

/** Starts a sleeping worker; resolves once it waits for (or has joined) a campaign. */
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

/** Runs one coordinator for `programs` programs; returns whole-process and session rates in tests per second. */
async function coordinate(url: string, programs: number, out: string): Promise<{ wallRate: number; sessionRate: number; wallMs: number; tests: number }> {
  const tests = programs * configsPerProgram;
  const r = await run([...kiln, 'fuzz', '--queue', url, '--compilers', 'gcc', '--opts', opts, '--tests', String(programs), '--seed-start', '1', '--out', out]);
  if (r.status !== 0) throw new Error(`coordinator failed (${r.status}): ${r.stderr}`);
  const m = /this session (\d+) programs, (\d+) tests in ([\d.]+) s/.exec(r.stdout);
  if (!m || Number(m[2]) !== tests) throw new Error(`unexpected coordinator summary: ${r.stdout}`);
  return { wallRate: tests / (r.wallMs / 1000), sessionRate: tests / Number(m[3]), wallMs: r.wallMs, tests };
}

const redisPort = await freePort();
const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', work, '--daemonize', 'no'], { stdio: 'ignore' });
const workers: ChildProcess[] = [];
try {
  for (let i = 0; !(await pong(redisPort)); i++) {
    if (i > 200 || redis.exitCode !== null) throw new Error('redis-server did not start (is it installed? npm run tools)');
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = `redis://127.0.0.1:${redisPort}`;
  console.log(`bench:scale: simulated tests sleep ${sleepMs} ms; ${configsPerProgram} configurations (gcc ${opts}) per program; batches of 4 seeds; coordinator timed spawn to exit (tsx start-up included)`);
  console.log('workers  tests  ideal/s  whole-process/s  session/s  efficiency(session/ideal)');
  for (const n of counts) {
    while (workers.length < n) workers.push(await startWorker(url, sleepMs));
    const ideal = (n * 1000) / sleepMs;
    const programs = Math.max(4, Math.round((ideal * seconds) / configsPerProgram));
    const r = await coordinate(url, programs, join(work, `out-${n}`));
    console.log(`${String(n).padStart(7)}  ${String(r.tests).padStart(5)}  ${ideal.toFixed(1).padStart(7)}  ${r.wallRate.toFixed(1).padStart(15)}  ${r.sessionRate.toFixed(1).padStart(9)}  ${((100 * r.sessionRate) / ideal).toFixed(0).padStart(5)}%`);
  }
  await stopAll(workers);

  for (let i = 0; i < ceilingWorkers; i++) workers.push(await startWorker(url, 0));
  const c = await coordinate(url, ceilingPrograms, join(work, 'out-ceiling'));
  console.log(`coordinator ceiling: ${c.tests} tests from ${ceilingWorkers} workers whose tests take no time: ${c.wallRate.toFixed(0)} tests/s whole process, ${c.sessionRate.toFixed(0)} tests/s in session (each program recorded in the store)`);
  await stopAll(workers);

  if (realSeconds > 0) {
    const r = await run([...kiln, 'fuzz', '-j', '1', '--compilers', 'gcc', '--time', `${realSeconds}s`, '--out', join(work, 'out-real')]);
    const m = /this session (\d+) programs, (\d+) tests in ([\d.]+) s/.exec(r.stdout);
    if (r.status !== 0 || !m) throw new Error(`the real campaign failed (${r.status}): ${r.stderr}`);
    const rate = Number(m[2]) / (r.wallMs / 1000);
    console.log(`one real worker (kiln fuzz -j 1, gcc × 5 option sets, medium programs, ${realSeconds} s): ${m[1]} programs, ${m[2]} tests, ${rate.toFixed(2)} tests/s whole process`);
    console.log(`coordinator ceiling / one real worker: ${(c.sessionRate / rate).toFixed(0)}× (session rate), ${(c.wallRate / rate).toFixed(0)}× (whole process)`);
  }
} finally {
  await stopAll(workers);
  redis.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}
