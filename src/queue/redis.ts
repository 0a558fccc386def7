import { Redis } from 'ioredis';
import { errBadOption, errQueueUnreachable } from '../diag/errors.js';

/** Where a campaign's queue lives: `redis://[:PASSWORD@]HOST:PORT[/DB]`. */
export interface QueueAddress {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly password?: string;
  /** The URL without its password, for messages. */
  readonly display: string;
}

/** How long a first connection may take before the queue counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

/** Parses `--queue`; a malformed URL is a KILN_BAD_OPTION error naming `option`. */
export function parseQueueUrl(text: string, option = '--queue'): QueueAddress {
  const expected = 'a Redis URL such as redis://HOST:6379 or redis://HOST:6379/2';
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw errBadOption(option, text, expected);
  }
  if (u.protocol !== 'redis:' || u.hostname === '' || u.search !== '' || u.hash !== '')
    throw errBadOption(option, text, expected);
  const port = u.port === '' ? 6379 : Number(u.port);
  const path = u.pathname.replace(/^\/+/, '');
  if (path !== '' && !/^\d{1,5}$/.test(path))
    throw errBadOption(option, text, `${expected} (the path is a database number)`);
  const db = path === '' ? 0 : Number(path);
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const password = u.password !== '' ? decodeURIComponent(u.password) : undefined;
  return { host, port, db, ...(password !== undefined ? { password } : {}), display: `redis://${u.host}/${db}` };
}

/**
 * Connection options for BullMQ: retries for ever once running (a Redis restart is waited out),
 * which BullMQ's workers require (`maxRetriesPerRequest: null`).
 */
export function connectionOptions(a: QueueAddress): {
  host: string;
  port: number;
  db: number;
  password?: string;
  maxRetriesPerRequest: null;
} {
  return {
    host: a.host,
    port: a.port,
    db: a.db,
    ...(a.password !== undefined ? { password: a.password } : {}),
    maxRetriesPerRequest: null,
  };
}

/**
 * Opens a plain client and checks the server answers within a few seconds: an unreachable or
 * password-protected Redis is a one-line KILN_QUEUE_UNREACHABLE error, not an endless retry loop.
 * Once connected, the client reconnects for ever (a Redis restart mid-campaign is waited out).
 */
export async function openRedis(a: QueueAddress): Promise<Redis> {
  const client = new Redis({
    ...connectionOptions(a),
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: () => null,
    maxRetriesPerRequest: 1,
  });
  // The socket's own error (ECONNREFUSED, ENOTFOUND) says more than connect()'s "Connection is closed".
  let cause: NodeJS.ErrnoException | undefined;
  client.on('error', (e: NodeJS.ErrnoException) => (cause ??= e));
  try {
    await client.connect();
    await client.ping();
  } catch (e) {
    client.disconnect();
    const err = cause ?? (e as NodeJS.ErrnoException);
    throw errQueueUnreachable(
      a.display,
      err.code
        ? `${err.code}${err.code === err.message ? '' : ` (${err.message.split('\n')[0]})`}`
        : (err.message.split('\n')[0] ?? 'no answer'),
    );
  }
  // Reachable: from now on a restart of Redis is waited out, as BullMQ's own connections do.
  client.options.retryStrategy = (times: number) => Math.min(200 * times, 2_000);
  client.options.maxRetriesPerRequest = null;
  return client;
}
