// The runners of a campaign session, side by side: on this machine's cores (the scheduler), the
// sanitizer runner (src/campaign/sanitizer-runner.ts), and a Redis queue of `kiln worker`
// processes (src/queue/coordinator.ts). The session (session.ts) is the same for all three.
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { CampaignRunner, RunnerSettings } from '../harness/runner.js';
import { runCampaign } from '../harness/scheduler.js';
import { sanitizerRunner } from './sanitizer-runner.js';
import type { FuzzSettings } from './settings.js';

/** The runner of a campaign on this machine: {@link runCampaign} with `jobs` slots. */
function localRunner(s: RunnerSettings): CampaignRunner {
  return {
    description: `${s.jobs} jobs`,
    checksCompilersHere: true,
    run: (input, hooks) =>
      runCampaign(
        {
          ...s,
          seeds: input.seeds,
          ...(input.maxPrograms !== undefined ? { maxPrograms: input.maxPrograms } : {}),
          ...(input.timeMs !== undefined ? { timeMs: input.timeMs } : {}),
          ...(input.signal ? { signal: input.signal } : {}),
        },
        hooks,
      ),
  };
}

/** The runner of a campaign on this machine's cores, from its settings. */
export function localRunnerFor(s: FuzzSettings): CampaignRunner {
  if (s.sanitizers)
    return sanitizerRunner({ configurations: s.configurations, limits: s.limits, policy: s.policy, jobs: s.jobs });
  return localRunner({
    configurations: s.configurations,
    limits: s.limits,
    policy: s.policy,
    mode: s.mode,
    jobs: s.jobs,
    rerunFailures: s.rerun,
    ...(s.ubShare ? { ubShare: s.ubShare } : {}),
    ...(s.emi ? { emi: s.emi } : {}),
    ...(s.capabilities ? { capabilities: s.capabilities } : {}),
  });
}

/**
 * The runner of `kiln fuzz --queue URL`: checks the queue is reachable and free for this campaign
 * before the session writes anything.
 */
export async function queueRunnerFor(s: FuzzSettings, url: string): Promise<CampaignRunner> {
  // BullMQ and ioredis load on demand: they are most of the start-up of every other command.
  const [{ checkQueueFree, queueRunner }, { parseQueueUrl }] = await Promise.all([
    import('../queue/coordinator.js'),
    import('../queue/redis.js'),
  ]);
  const address = parseQueueUrl(url);
  const owner = (id: number): string => `campaign ${id} of ${hostname()}:${resolve(s.out)}`;
  await checkQueueFree(address, s.resume ? owner(s.resume.id) : undefined);
  return queueRunner({
    address,
    configurations: s.configurations,
    owner,
    settings: {
      compilers: s.compilers.map((c) => ({ name: c.name, command: c.command, version: c.version })),
      optionSets: s.optionSets,
      limits: s.limits,
      policy: s.policy,
      mode: s.mode,
      rerun: s.rerun,
    },
  });
}
