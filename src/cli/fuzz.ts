import type { Command } from 'commander';
import { queueRunnerFor } from '../campaign/runners.js';
import { withCapabilities } from '../campaign/settings.js';
import { fuzz } from '../campaign/session.js';
import { errBadOption } from '../diag/errors.js';
import { missingSurvivalTools, sanitizerMatrix } from '../edge/sancampaign.js';
import { MODE_CHOICES } from '../gen/mode.js';
import { findOnPath } from '../harness/compilers.js';
import { NEWEST_OPTION_SETS } from '../harness/configure.js';
import { DEFAULT_MAX_PER_BUCKET } from '../store/cap.js';
import type { FuzzFlags } from './fuzz-flags.js';
import { DEFAULT_MODE, resolveSettings } from './fuzz-settings.js';
import { reportAndExit } from './util.js';

export type { FuzzFlags } from './fuzz-flags.js';
export { resolveSettings } from './fuzz-settings.js';

/** Registers `kiln fuzz`. */
export function registerFuzz(program: Command): void {
  program
    .command('fuzz')
    .description(
      'run a campaign: generate programs, compile and run them with every compiler and option set, keep every failure',
    )
    .option('--config <file>', 'campaign configuration (YAML or JSON; see docs/config.md)')
    .option(
      '--compilers <list>',
      'comma-separated compiler commands or paths (default: every gcc, clang, tcc, pcc, cc on PATH, and the ' +
        'compilers of the sid root that `npm run setup -- --profile latest` builds, e.g. gcc-snapshot, gcc-16, ' +
        'clang-22)',
    )
    .option(
      '--opts <sets>',
      "option sets separated by ';' or ',' (default '-O0;-O1;-O2;-Os;-O3', and when every compiler is a gcc 13+ " +
        `or clang 19+ also '${NEWEST_OPTION_SETS.join(';')}', an ISA level only where this machine runs it); ` +
        "'+swarm' (or '+swarm=K') in a set appends up to 8 (K) flags drawn per test from the compiler's " +
        "catalogue of optimisation flags; '+profile' builds it with the instrumented build's profile, " +
        "'+profile=perturbed' with a perturbed one (docs/config.md, docs/profiles.md)",
    )
    .option('-j, --jobs <n>', 'concurrent jobs (default: one per core)')
    .option('--time <duration>', 'stop after this wall time, e.g. 90s, 10m, 2h')
    .option('--tests <n>', 'stop after N programs in all (each is tested with every configuration)')
    .option('--out <dir>', 'output folder: database, findings (default ./kiln-out)')
    .option('--seed-start <n>', 'first seed of a new campaign (default: after the seeds already used in --out)')
    .option('--resume', 'continue the latest campaign in the output folder with its settings')
    .option('--policy <file>', 'generation policy file (YAML or JSON)')
    .option('--size <preset>', 'program size: small, medium (default) or large')
    .option(
      '--mode <mode>',
      `generation mode: ${MODE_CHOICES.join(', ')} (mixed draws one per program; default ${DEFAULT_MODE})`,
    )
    .option('--compile-timeout <duration>', 'wall-clock limit of one compile (default 120s)')
    .option('--run-timeout <duration>', 'wall-clock limit of one binary run (default 10s)')
    .option('--memory <size>', 'address-space limit of compiles and runs, e.g. 2GiB, or none (default 2GiB)')
    .option('--no-rerun', 'keep failures without testing them a second time')
    .option(
      '--ub-share <f>',
      'share F (0 to 1) of csmith-mode programs relaxed as CsmithEdge does (policy section relax): one with ' +
        'undefined behaviour is compiled only, and only compiler crashes and hangs count; one the interpreter ' +
        'finds UB-free is tested as usual',
    )
    .option(
      '--sanitizers',
      'test the sanitizers instead: half the programs carry one UB on purpose (kiln gen --ub), built with ' +
        'the sanitizer that covers it; the rest are UB-free, built with ASan+UBSan and (clang) MSan; gcc and ' +
        'clang configurations only',
    )
    .option(
      '--emi <k>',
      'test K EMI variants of each program as well (proven equivalent by the interpreter; see kiln emi)',
    )
    .option(
      '--reduce',
      'reduce the first finding of each new bucket in the background (one job): reduced.c and a bug report ' +
        'in its folder',
    )
    .option(
      '--max-per-bucket <n>',
      `findings stored per bucket: the first N and the smallest program; the rest are counted ` +
        `(default ${DEFAULT_MAX_PER_BUCKET}; none for no cap)`,
    )
    .option(
      '--queue <url>',
      "coordinate a campaign whose tests run on 'kiln worker' processes through this Redis queue: " +
        'redis://HOST:PORT[/DB]',
    )
    .addHelpText(
      'after',
      `
Examples:
  kiln fuzz                                   every compiler on PATH at -O0 -O1 -O2 -Os -O3, all cores
  kiln fuzz --compilers gcc,clang-15 --opts '-O0;-O3 -march=native' --time 2h
  kiln fuzz --compilers gcc-snapshot,clang-24 --opts '-O3 -march=x86-64-v4 +swarm;-O2 -flto'   ISA, flags, LTO
  kiln fuzz --compilers gcc-12,clang-14 --opts '-O2;-O2 +profile;-O2 +profile=perturbed'   profile-guided builds
  kiln fuzz --resume                          continue the latest campaign in ./kiln-out
  kiln fuzz --time 1h --reduce                reduce each new bug to a small test case as it is found
  kiln fuzz --queue redis://lab:6379 --time 24h   coordinate workers started with 'kiln worker --queue redis://lab:6379'
Ctrl-C stops cleanly (a second Ctrl-C aborts); 'kiln findings' lists what was found.`,
    )
    .action(async (flags: FuzzFlags) => {
      try {
        const settings = await resolveSettings(flags);
        if (settings.sanitizers) {
          const { skipped } = sanitizerMatrix(settings.configurations);
          if (skipped.length > 0)
            process.stderr.write(
              `kiln fuzz: --sanitizers: ` +
                `skipping ${[...new Set(skipped.map((c) => c.compiler.name))].join(', ')} (only gcc and clang ` +
                `drivers take -fsanitize)\n`,
            );
          for (const line of missingSurvivalTools((t) => findOnPath(t) !== undefined))
            process.stderr.write(`kiln fuzz: --sanitizers: ${line}\n`);
        }
        // Workers regenerate seeds' programs; EMI variants and relaxed programs are not yet shipped to them.
        if (flags.queue !== undefined && settings.sanitizers)
          throw errBadOption(
            '--queue',
            flags.queue,
            'no --queue with --sanitizers (sanitizer testing runs on this machine)',
          );
        if (flags.queue !== undefined && (settings.emi || settings.ubShare))
          throw errBadOption(
            settings.emi ? '--emi' : '--ub-share',
            String(settings.emi || settings.ubShare),
            "a local campaign: queued campaigns test the seeds' plain programs only",
          );
        if (flags.queue === undefined) await fuzz(settings);
        else {
          // Workers test every program on every compiler: draw only what all of them accept (probed
          // here; a compiler this machine cannot run accepts nothing beyond C11).
          const lowered = await withCapabilities(settings, 'every');
          await fuzz(lowered, await queueRunnerFor(lowered, flags.queue));
        }
      } catch (e) {
        reportAndExit(e);
      }
    });
}
