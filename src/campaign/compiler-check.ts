import { errBadOption, errBrokenConfiguration, errState } from '../diag/errors.js';
import { checkConfigurations } from '../harness/preflight.js';
import type { FuzzSettings } from './settings.js';

/**
 * Refuses a campaign with a configuration that cannot compile and run a tiny program under the
 * campaign's limits: every test would be a finding. Ctrl-C during the check stops it quietly.
 * Returns how long the check took (ms).
 */
export async function checkCompilers(s: FuzzSettings): Promise<number> {
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let broken;
  const started = Date.now();
  // On a terminal the user is waiting; in a log the line after the check says it all, and an
  // error stays the first line of stderr.
  if (process.stderr.isTTY)
    process.stderr.write(`kiln fuzz: checking ${s.configurations.length} configurations on a small program first\n`);
  try {
    broken = await checkConfigurations(s.configurations, s.limits, s.jobs, stop.signal);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
  if (broken === undefined) throw errState('kiln fuzz: interrupted while checking the compilers; nothing was started');
  if (broken.length === 0) return Date.now() - started;
  const [first] = broken;
  const refused = broken.find((b) => b.rejectedOption !== undefined);
  if (refused)
    throw errBadOption(
      '--opts',
      refused.config.optionsText,
      `options ${refused.config.compiler.name} accepts: it refuses ${refused.rejectedOption} (${refused.reason})`,
    );
  const name = `${first!.config.compiler.name}${first!.config.optionsText ? ` ${first!.config.optionsText}` : ''}`;
  const mem = s.limits.compile.memoryMb ?? s.limits.run.memoryMb;
  throw errBrokenConfiguration(
    name,
    first!.memoryLimited
      ? `${first!.reason} under the memory limit of ${mem} MiB, and works without it`
      : first!.reason,
    broken.length - 1,
    first!.memoryLimited
      ? 'raise --memory (limits.compile.memory / limits.run.memory in the configuration file), or give none'
      : /-fuse-ld=lld/.test(first!.reason)
        ? `clang's -flto configurations link with lld: install it for ${first!.config.compiler.name} (Debian: ` +
          `lld-N for clang-N; 'npm run setup -- --profile latest' installs the root's)`
        : `try '${[first!.config.compiler.command, ...first!.config.options].join(' ')} prog.c && ./a.out' by ` +
          `hand, or leave the configuration out`,
  );
}
