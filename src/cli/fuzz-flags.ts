// Parsers of `kiln fuzz`'s flag values and configuration fields; each error names its flag.
import { errBadOption } from '../diag/errors.js';
import { JOB_MEMORY_MB, maxJobs, memoryMb, thisMachine, type FuzzConfig } from '../harness/config.js';
import { LP64, type TargetModel } from '../c/target.js';
import { sanitizerMatrix } from '../edge/sancampaign.js';
import type { Compiler } from '../harness/compilers.js';
import { commonTarget, configTarget, DEFAULT_LIMITS, type Configuration, type Limits } from '../harness/matrix.js';
import { refuseStaticProfileProblems } from '../harness/profile-probe.js';
import { parseCount, parseDuration } from './util.js';

/** Flags of `kiln fuzz`, as Commander hands them over. */
export interface FuzzFlags {
  config?: string;
  compilers?: string;
  opts?: string;
  jobs?: string;
  time?: string;
  tests?: string;
  out?: string;
  seedStart?: string;
  resume?: boolean;
  policy?: string;
  size?: string;
  compileTimeout?: string;
  runTimeout?: string;
  memory?: string;
  rerun?: boolean;
  mode?: string;
  reduce?: boolean;
  maxPerBucket?: string;
  queue?: string;
  ubShare?: string;
  emi?: string;
  sanitizers?: boolean;
}

/** A share: a number from 0 to 1. */
export function parseShare(option: string, v: string): number {
  const x = Number(v);
  if (v.trim() === '' || !Number.isFinite(x) || x < 0 || x > 1)
    throw errBadOption(option, v, 'a share from 0 to 1, such as 0.2');
  return x;
}

/** `--max-per-bucket`: an integer ≥ 1, or `none` (null) for no cap. */
export function parseMaxPerBucket(v: string): number | null {
  if (/^(none|unlimited)$/i.test(v.trim())) return null;
  return parseCount('--max-per-bucket', v, 1, 1);
}

/** Refuses more jobs than this machine can hold (each is a generator process plus a compile). */
export function checkJobs(jobs: number, fail: (expected: string) => Error): number {
  const bound = maxJobs();
  if (jobs <= bound) return jobs;
  const m = thisMachine();
  throw fail(
    `at most ${bound} on this machine (${m.cores} cores, ${(m.memoryMb / 1024).toFixed(1)} GiB of memory; ` +
      `each job needs about ${JOB_MEMORY_MB} MiB: a generator process and a compile)`,
  );
}

/** `--compile-timeout`, `--run-timeout` and `--memory` over the configuration file's limits over the defaults. */
export function resolveLimits(flags: FuzzFlags, cfg: FuzzConfig): Limits {
  const mem = (
    flag: string | undefined,
    fromCfg: number | false | undefined,
    fallback: number | undefined,
  ): number | undefined => {
    if (flag !== undefined) {
      const m = memoryMb(flag);
      if (m === undefined) throw errBadOption('--memory', flag, 'a size such as 2GiB or 512MiB, or none');
      return m === false ? undefined : m;
    }
    if (fromCfg !== undefined) return fromCfg === false ? undefined : fromCfg;
    return fallback;
  };
  const positive = (opt: string, v: string | undefined): number | undefined => {
    const ms = parseDuration(opt, v);
    if (ms !== undefined && ms <= 0) throw errBadOption(opt, v!, 'a positive duration such as 10s');
    return ms;
  };
  return {
    compile: {
      timeoutMs:
        positive('--compile-timeout', flags.compileTimeout) ??
        cfg.limits?.compile?.timeout ??
        DEFAULT_LIMITS.compile.timeoutMs,
      memoryMb: mem(flags.memory, cfg.limits?.compile?.memory, DEFAULT_LIMITS.compile.memoryMb),
    },
    run: {
      timeoutMs:
        positive('--run-timeout', flags.runTimeout) ?? cfg.limits?.run?.timeout ?? DEFAULT_LIMITS.run.timeoutMs,
      memoryMb: mem(flags.memory, cfg.limits?.run?.memory, DEFAULT_LIMITS.run.memoryMb),
    },
  };
}

/** A comma-separated flag value, each item trimmed; empty lists are refused. */
export function splitList(option: string, text: string): string[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (items.length === 0)
    throw errBadOption(option, text, 'a comma-separated list such as gcc,clang-14,/opt/cc/bin/cc');
  return items;
}

/**
 * Checks a campaign's configurations: with --sanitizers, host gcc and clang ones; profile
 * configurations only of compilers with profile-guided builds. Returns their target models, in
 * the order of the configurations (the first is the policy's); errors name --compilers with
 * `specs` (the names given).
 */
export function checkConfigurations(
  configurations: readonly Configuration[],
  specs: string | undefined,
  compilers: readonly Compiler[],
  sanitizers: boolean,
): readonly TargetModel[] {
  if (sanitizers && sanitizerMatrix(configurations).tested.length === 0) {
    throw errBadOption(
      '--compilers',
      specs ?? compilers.map((c) => c.name).join(','),
      'at least one gcc or clang driver with --sanitizers (they are the compilers with -fsanitize)',
    );
  }
  if (sanitizers && configurations.some((c) => c.compiler.target !== undefined || configTarget(c) !== LP64)) {
    throw errBadOption(
      '--compilers',
      specs ?? '',
      'host (x86-64) gcc and clang configurations with --sanitizers (sanitized binaries run natively)',
    );
  }
  const profiled = configurations.find((c) => c.profile);
  if (sanitizers && profiled)
    throw errBadOption('--opts', profiled.optionsText, 'option sets without +profile with --sanitizers');
  refuseStaticProfileProblems(configurations);
  // A campaign over several targets generates each seed once per target model (src/harness/scheduler.ts).
  return commonTarget(configurations).all;
}
