// Bad input to distributed campaigns: an unreachable Redis, a malformed URL, a queue of another
// campaign, a worker without a compiler the campaign needs (or with another version of it) — each
// one coded line on stderr, exit status 2, no stack trace, and nothing written.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadPolicy } from '../../src/cli/util.js';
import { DEFAULT_LIMITS } from '../../src/harness/matrix.js';
import {
  kilnVersion,
  META_KEY,
  settingsDigest,
  type CampaignMeta,
  type WireSettings,
} from '../../src/queue/protocol.js';
import { parseQueueUrl } from '../../src/queue/redis.js';
import { isKilnError } from '../../src/diag/errors.js';
import { requireTool } from '../support/cc.js';
import { freePort, startRedis, type TestRedis } from '../support/redis.js';
import { runKiln, type CliResult } from '../harness/support/cli.js';

function expectCoded(r: CliResult, code: string, text?: RegExp): void {
  expect(r.status, r.stderr).toBe(2);
  const lines = r.stderr.trimEnd().split('\n');
  const error = lines.find((l) => l.startsWith('kiln: error['));
  expect(error, r.stderr).toMatch(new RegExp(`^kiln: error\\[${code}\\]: `));
  if (text) expect(error).toMatch(text);
  expect(lines.filter((l) => l.startsWith('kiln: error[')).length).toBe(1);
  expect(r.stderr).toMatch(/\nkiln: hint: /);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

function meta(settings: WireSettings, owner = 'campaign 7 of elsewhere:/data/kiln-out'): CampaignMeta {
  const kiln = kilnVersion();
  return { owner, kiln, digest: settingsDigest(settings, kiln), settings };
}

describe('distributed campaigns: bad input', () => {
  let redis: TestRedis;
  let client: Redis;
  let work: string;
  let gccVersion: string;

  beforeAll(async () => {
    requireTool('gcc');
    redis = await startRedis();
    client = new Redis({ host: '127.0.0.1', port: redis.port });
    work = mkdtempSync(join(tmpdir(), 'kiln-queue-errors-'));
    const r = await runKiln(['compilers']);
    gccVersion = /gcc\s+(gcc .*)/.exec(r.stdout)?.[1]?.trim() ?? '';
  });

  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await client.flushdb();
  });

  const settings = (compilers: WireSettings['compilers']): WireSettings => ({
    compilers,
    optionSets: ['-O0'],
    limits: DEFAULT_LIMITS,
    policy: loadPolicy(undefined, 'small'),
    mode: 'csmith',
    rerun: true,
  });

  it('parses Redis URLs and refuses malformed ones with KILN_BAD_OPTION', () => {
    expect(parseQueueUrl('redis://lab:6380/3')).toMatchObject({ host: 'lab', port: 6380, db: 3 });
    expect(parseQueueUrl('redis://:s3cret@10.0.0.2')).toMatchObject({
      host: '10.0.0.2',
      port: 6379,
      db: 0,
      password: 's3cret',
      display: 'redis://10.0.0.2/0',
    });
    for (const bad of [
      'lab:6379',
      'http://lab:6379',
      'redis://',
      'redis://lab:6379/x',
      'redis://lab:99999',
      'redis://lab:6379/1?db=2',
    ]) {
      let e: unknown;
      try {
        parseQueueUrl(bad);
      } catch (x) {
        e = x;
      }
      expect(isKilnError(e) && e.code, bad).toBe('KILN_BAD_OPTION');
    }
  });

  it('a malformed --queue URL: one coded line, no output folder', async () => {
    const out = join(work, 'bad-url');
    expectCoded(
      await runKiln(['fuzz', '--compilers', 'gcc', '--queue', 'http://127.0.0.1:6379', '--out', out]),
      'KILN_BAD_OPTION',
      /--queue/,
    );
    expect(existsSync(out)).toBe(false);
    expectCoded(await runKiln(['worker', '--queue', 'redis://127.0.0.1:6379/db']), 'KILN_BAD_OPTION', /--queue/);
  });

  it('an unreachable Redis: coordinator and worker say so in one line', async () => {
    const port = await freePort();
    const out = join(work, 'unreachable');
    expectCoded(
      await runKiln(['fuzz', '--compilers', 'gcc', '--queue', `redis://127.0.0.1:${port}`, '--out', out]),
      'KILN_QUEUE_UNREACHABLE',
      /ECONNREFUSED/,
    );
    expect(existsSync(out)).toBe(false);
    expectCoded(await runKiln(['worker', '--queue', `redis://127.0.0.1:${port}`]), 'KILN_QUEUE_UNREACHABLE');
  });

  it('a queue of another campaign: refused before anything is written', async () => {
    await client.set(
      META_KEY,
      JSON.stringify(meta(settings([{ name: 'gcc', command: '/usr/bin/gcc', version: gccVersion }]))),
    );
    const out = join(work, 'busy');
    expectCoded(
      await runKiln(['fuzz', '--compilers', 'gcc', '--queue', redis.url, '--out', out]),
      'KILN_QUEUE_BUSY',
      /campaign 7 of elsewhere/,
    );
    expect(existsSync(out)).toBe(false);
    // The other campaign's queue is untouched.
    expect(JSON.parse((await client.get(META_KEY))!).owner).toBe('campaign 7 of elsewhere:/data/kiln-out');
  });

  it('a worker without a compiler the campaign needs, or with another version of it, refuses', async () => {
    await client.set(
      META_KEY,
      JSON.stringify(
        meta(
          settings([{ name: 'cc-from-the-lab', command: '/opt/lab/bin/cc-from-the-lab', version: 'gcc (Lab) 99.1' }]),
        ),
      ),
    );
    expectCoded(
      await runKiln(['worker', '--queue', redis.url, '-j', '1']),
      'KILN_UNKNOWN_COMPILER',
      /cc-from-the-lab.*the campaign needs it/,
    );
    await client.set(
      META_KEY,
      JSON.stringify(
        meta(settings([{ name: 'gcc', command: '/usr/bin/gcc', version: 'gcc (Debian 4.9.2-10) 4.9.2' }])),
      ),
    );
    expectCoded(
      await runKiln(['worker', '--queue', redis.url, '-j', '1']),
      'KILN_WORKER_MISMATCH',
      /gcc here is '.*', the campaign's is 'gcc \(Debian 4\.9\.2-10\) 4\.9\.2'/,
    );
  });
});
