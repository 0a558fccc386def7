import type { Command } from 'commander';
import { errBadOption } from '../diag/errors.js';
import { maxJobs } from '../harness/config.js';
import { DEFAULT_LOCK_MS } from '../queue/protocol.js';
import { parseCount, parseDuration, reportAndExit } from './util.js';

/** Registers `kiln worker`. */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description(
      "run a campaign's tests for a coordinator ('kiln fuzz --queue URL') on any machine: take batches of " +
        'seeds from the queue, generate, compile, run, judge, send back the results',
    )
    .requiredOption('--queue <url>', 'the Redis queue of the campaign: redis://HOST:PORT[/DB]')
    .option('-j, --jobs <n>', 'concurrent jobs (default: one per core)')
    .option(
      '--lock-timeout <duration>',
      `how long a batch stays this worker's without a sign of life: the batch of a worker that died goes to ` +
        `another one after this (default ${DEFAULT_LOCK_MS / 1000}s)`,
    )
    .option('--quiet', 'no line per batch')
    .addHelpText(
      'after',
      `
Examples:
  kiln worker --queue redis://lab-server:6379          one job per core, until Ctrl-C
  kiln worker --queue redis://lab-server:6379/2 -j 8
The worker needs the campaign's compilers (same versions) and the same Kiln version as the
coordinator, or it refuses. Ctrl-C stops it; the batch in hand goes back to the queue.`,
    )
    .action(async (flags: { queue: string; jobs?: string; lockTimeout?: string; quiet?: boolean }) => {
      try {
        const [{ parseQueueUrl }, { runWorker }] = await Promise.all([
          import('../queue/redis.js'),
          import('../queue/worker.js'),
        ]);
        const address = parseQueueUrl(flags.queue);
        const bound = maxJobs();
        const jobs = flags.jobs !== undefined ? parseCount('--jobs', flags.jobs, 1, 1) : bound;
        if (jobs > bound) throw errBadOption('--jobs', flags.jobs!, `at most ${bound} on this machine`);
        const lockMs = parseDuration('--lock-timeout', flags.lockTimeout);
        if (lockMs !== undefined && lockMs < 1_000)
          throw errBadOption('--lock-timeout', flags.lockTimeout!, 'a duration of at least 1s, such as 15s');
        const stop = new AbortController();
        let interrupts = 0;
        const onSignal = (sig: NodeJS.Signals): void => {
          if (++interrupts > 1) process.exit(130);
          process.stderr.write(
            `kiln worker: ${sig}: stopping; the batch in hand goes back to the queue (${sig} again aborts at once)\n`,
          );
          stop.abort();
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        const say = (line: string): void => void process.stderr.write(`${line}\n`);
        const done = await runWorker({
          address,
          jobs,
          say,
          signal: stop.signal,
          verbose: flags.quiet !== true,
          ...(lockMs !== undefined ? { lockMs } : {}),
        });
        process.stdout.write(
          `kiln worker: stopped after ${done.batches} batches, ${done.programs} programs, ${done.tests} tests\n`,
        );
      } catch (e) {
        reportAndExit(e);
      }
    });
}
