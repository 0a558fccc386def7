// The runner of `kiln fuzz --sanitizers`: programs generated here one at a time (small UB or
// UB-free programs, src/edge/sanitize.ts), each tested by src/edge/sancampaign.ts while the next is
// generated, with at most `jobs` sanitized builds at once.
import { sanitizerMatrix, Slots, testSanitizerProgram } from '../edge/sancampaign.js';
import { sanitizerProgram, type SanitizerProgram } from '../edge/sanitize.js';
import { asConfigResult } from '../edge/sanjudge.js';
import type { Configuration } from '../harness/matrix.js';
import {
  RunState,
  type CampaignHooks,
  type CampaignRunner,
  type CampaignSummary,
  type ProgramReport,
  type RunnerInput,
  type RunnerSettings,
} from '../harness/runner.js';
import { TempRoot } from '../harness/tempdir.js';

/** The runner of `kiln fuzz --sanitizers` on this machine (jobs: concurrent sanitized builds). */
export function sanitizerRunner(s: RunnerSettings): CampaignRunner {
  const { tested } = sanitizerMatrix(s.configurations);
  return {
    description: `${s.jobs} jobs, sanitizer testing (${tested.length} gcc/clang configurations)`,
    checksCompilersHere: true,
    run: (input, hooks) => runSanitizerCampaign(s, tested, input, hooks),
  };
}

async function runSanitizerCampaign(
  s: RunnerSettings,
  configs: readonly Configuration[],
  input: RunnerInput,
  hooks: CampaignHooks,
): Promise<CampaignSummary> {
  if (configs.length === 0) throw new Error('sanitizer campaign: no gcc or clang configuration');
  const temp = TempRoot.create();
  const slots = new Slots(s.jobs);
  const kill = new AbortController();
  // Ctrl-C and the time limit abandon the programs in flight.
  const state = new RunState(input, () => kill.abort());
  const inFlight = new Set<Promise<void>>();
  // How the loop ran its course; Ctrl-C or the clock, even while the last programs finish, wins.
  let ran: 'tests' | 'seeds' = 'seeds';
  try {
    // Programs are generated here, one at a time, while earlier ones are being built: generation
    // of small programs takes well under the builds' time.
    while (!kill.signal.aborted) {
      if (state.limitReached()) {
        ran = 'tests';
        break;
      }
      const next = input.seeds.next();
      if (next.done) {
        ran = 'seeds';
        break;
      }
      const seed = next.value;
      state.startedPrograms++;
      let p: SanitizerProgram;
      try {
        p = sanitizerProgram(seed, s.policy);
      } catch (e) {
        await hooks.onProgram({
          seed,
          status: 'error',
          genMs: 0,
          reason: e instanceof Error ? (e.stack ?? e.message) : String(e),
          results: [],
        });
        state.programs++;
        continue;
      }
      if (!p.ok) {
        await hooks.onProgram({ seed, status: 'discarded', genMs: p.genMs, reason: p.reason, results: [] });
        state.programs++;
        continue;
      }
      const prog = p;
      const task = testSanitizerProgram(prog, {
        configurations: configs,
        limits: s.limits,
        temp,
        signal: kill.signal,
        slots,
        onRun: (r) => hooks.onTest?.(asConfigResult(r, { outcome: 'ok' })),
      }).then(async ({ results }) => {
        if (kill.signal.aborted) return;
        state.tests += results.length;
        const report: ProgramReport = {
          seed,
          status: 'tested',
          genMs: prog.genMs,
          mode: 'csmith',
          files: prog.files,
          expected: prog.expected,
          results,
        };
        await hooks.onProgram(report);
        state.programs++;
      });
      const t: Promise<void> = task.finally(() => inFlight.delete(t));
      inFlight.add(t);
      // Enough programs in flight to keep every slot busy (a program has several builds).
      while (inFlight.size > s.jobs && !kill.signal.aborted) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  } finally {
    state.dispose();
    temp.dispose();
  }
  return state.summary(state.stoppedBy ?? ran);
}
