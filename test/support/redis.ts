// A private Redis server for a test: a free loopback port, no persistence unless asked, stopped
// (SIGKILL, whole process) in afterAll. Fails with a reason when redis-server is missing.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireTool } from './cc.js';

/** A running test Redis. */
export interface TestRedis {
  readonly port: number;
  readonly url: string;
  readonly child: ChildProcess;
  /** Kills the server (SIGKILL) and starts it again on the same port and folder (its append-only file, if any). */
  restart(): Promise<void>;
  /** Stops the server (SIGKILL) and removes its folder. */
  stop(): Promise<void>;
}

/** A port the kernel says is free on 127.0.0.1 now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.write('PING\r\n');
    });
    s.once('data', (d) => {
      s.destroy();
      resolve(d.toString().startsWith('+PONG'));
    });
    s.once('error', () => resolve(false));
  });
}

async function launch(args: readonly string[], port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const end = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port} (exit ${child.exitCode})`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
}

/**
 * Starts `redis-server` on a free loopback port; `persist` turns on the append-only file (every
 * write synced) in its own folder.
 */
export async function startRedis(opts: { persist?: boolean; port?: number } = {}): Promise<TestRedis> {
  requireTool('redis-server');
  const port = opts.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'kiln-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    opts.persist ? 'yes' : 'no',
    '--appendfsync',
    'always',
    '--dir',
    dir,
    '--daemonize',
    'no',
  ];
  let child = await launch(args, port);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get child() {
      return child;
    },
    restart: async () => {
      await kill(child);
      child = await launch(args, port);
    },
    stop: async () => {
      await kill(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
