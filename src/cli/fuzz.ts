import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { FuzzSettings, StoredSettings } from '../campaign/settings.js';
import { fuzz } from '../campaign/session.js';
import { errBadConfig, errBadOption, errDatabase, errState, errUnknownCompiler } from '../diag/errors.js';
import { isModeChoice, MODE_CHOICES, type ModeChoice } from '../gen/mode.js';
import { parsePolicy, PolicyError, type Policy, type SizePreset } from '../gen/policy.js';
import { detectCompilers, findOnPath, resolveCompilers } from '../harness/compilers.js';
import { JOB_MEMORY_MB, maxJobs, memoryMb, parseFuzzConfig, thisMachine, type FuzzConfig } from '../harness/config.js';
import { LP64 } from '../c/target.js';
import { missingSurvivalTools, sanitizerMatrix } from '../edge/sancampaign.js';
import { buildMatrix, commonTarget, configTarget, DEFAULT_LIMITS, DEFAULT_OPTION_SETS, splitOptionSets, type Limits } from '../harness/matrix.js';
import { DEFAULT_MAX_PER_BUCKET } from '../store/cap.js';
import { KilnStore, type CampaignRow } from '../store/store.js';
import { queueRunnerFor } from '../campaign/runners.js';
import { loadPolicy, parseCount, parseDuration, parseSeed, parseSize, readConfigFile, reportAndExit } from './util.js';

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

export type { FuzzSettings, StoredSettings } from '../campaign/settings.js';

/** Registers `kiln fuzz`. */
export function registerFuzz(program: Command): void {
  program
    .command('fuzz')
    .description('run a campaign: generate programs, compile and run them with every compiler and option set, keep every failure')
    .option('--config <file>', 'campaign configuration (YAML or JSON; see docs/config.md)')
    .option('--compilers <list>', 'comma-separated compiler commands or paths (default: every gcc, clang, tcc, pcc, cc on PATH, and the compilers of the sid root that `npm run setup -- --profile latest` builds, e.g. gcc-snapshot, gcc-16, clang-22)')
    .option('--opts <sets>', "option sets separated by ';' or ',' (default '-O0;-O1;-O2;-Os;-O3')")
    .option('-j, --jobs <n>', 'concurrent jobs (default: one per core)')
    .option('--time <duration>', 'stop after this wall time, e.g. 90s, 10m, 2h')
    .option('--tests <n>', 'stop after N programs in all (each is tested with every configuration)')
    .option('--out <dir>', 'output folder: database, findings (default ./kiln-out)')
    .option('--seed-start <n>', 'first seed of a new campaign (default: after the seeds already used in --out)')
    .option('--resume', 'continue the latest campaign in the output folder with its settings')
    .option('--policy <file>', 'generation policy file (YAML or JSON)')
    .option('--size <preset>', 'program size: small, medium (default) or large')
    .option('--mode <mode>', `generation mode: ${MODE_CHOICES.join(', ')} (mixed draws one per program; default ${DEFAULT_MODE})`)
    .option('--compile-timeout <duration>', 'wall-clock limit of one compile (default 120s)')
    .option('--run-timeout <duration>', 'wall-clock limit of one binary run (default 10s)')
    .option('--memory <size>', 'address-space limit of compiles and runs, e.g. 2GiB, or none (default 2GiB)')
    .option('--no-rerun', 'keep failures without testing them a second time')
    .option('--ub-share <f>', "share F (0 to 1) of csmith-mode programs relaxed as CsmithEdge does (policy section relax): one with undefined behaviour is compiled only, and only compiler crashes and hangs count; one the interpreter finds UB-free is tested as usual")
    .option('--sanitizers', 'test the sanitizers instead: half the programs carry one UB on purpose (kiln gen --ub), built with the sanitizer that covers it; the rest are UB-free, built with ASan+UBSan and (clang) MSan; gcc and clang configurations only')
    .option('--emi <k>', 'test K EMI variants of each program as well (proven equivalent by the interpreter; see kiln emi)')
    .option('--reduce', 'reduce the first finding of each new bucket in the background (one job): reduced.c and a bug report in its folder')
    .option('--max-per-bucket <n>', `findings stored per bucket: the first N and the smallest program; the rest are counted (default ${DEFAULT_MAX_PER_BUCKET}; none for no cap)`)
    .option('--queue <url>', "coordinate a campaign whose tests run on 'kiln worker' processes through this Redis queue: redis://HOST:PORT[/DB]")
    .addHelpText(
      'after',
      `
Examples:
  kiln fuzz                                   every compiler on PATH at -O0 -O1 -O2 -Os -O3, all cores
  kiln fuzz --compilers gcc,clang-15 --opts '-O0;-O3 -march=native' --time 2h
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
          if (skipped.length > 0) process.stderr.write(`kiln fuzz: --sanitizers: skipping ${[...new Set(skipped.map((c) => c.compiler.name))].join(', ')} (only gcc and clang drivers take -fsanitize)\n`);
          for (const line of missingSurvivalTools((t) => findOnPath(t) !== undefined)) process.stderr.write(`kiln fuzz: --sanitizers: ${line}\n`);
        }
        // Workers regenerate seeds' programs; EMI variants and relaxed programs are not yet shipped to them.
        if (flags.queue !== undefined && settings.sanitizers) throw errBadOption('--queue', flags.queue, 'no --queue with --sanitizers (sanitizer testing runs on this machine)');
        if (flags.queue !== undefined && (settings.emi || settings.ubShare)) throw errBadOption(settings.emi ? '--emi' : '--ub-share', String(settings.emi || settings.ubShare), 'a local campaign: queued campaigns test the seeds\' plain programs only');
        await fuzz(settings, flags.queue !== undefined ? await queueRunnerFor(settings, flags.queue) : undefined);
      } catch (e) {
        reportAndExit(e);
      }
    });
}

/** The generation mode of a campaign that names none. */
const DEFAULT_MODE: ModeChoice = 'mixed';

/** Flags a resumed campaign takes from its stored settings instead. */
const FIXED_ON_RESUME: readonly (keyof FuzzFlags)[] = ['config', 'compilers', 'opts', 'seedStart', 'policy', 'size', 'mode', 'compileTimeout', 'runTimeout', 'memory', 'ubShare', 'emi', 'sanitizers'];

/**
 * Merges flags over the configuration file over the defaults, and validates everything — compilers
 * included — before anything is written: a bad input leaves an existing output folder untouched.
 */
export async function resolveSettings(flags: FuzzFlags): Promise<FuzzSettings> {
  const jobs = flags.jobs !== undefined ? checkJobs(parseCount('--jobs', flags.jobs, 1, 1), (expected) => errBadOption('--jobs', flags.jobs!, expected)) : undefined;
  const timeMs = parseDuration('--time', flags.time);
  if (timeMs !== undefined && timeMs <= 0) throw errBadOption('--time', flags.time!, 'a positive duration such as 90s, 10m or 2h');
  const tests = flags.tests !== undefined ? parseCount('--tests', flags.tests, 1, 1) : undefined;
  const maxPerBucket = flags.maxPerBucket !== undefined ? parseMaxPerBucket(flags.maxPerBucket) : undefined;
  if (flags.resume) return resolveResume(flags, jobs, timeMs, tests, maxPerBucket);

  const cfgFile = flags.config;
  const cfg: FuzzConfig = cfgFile ? parseFuzzConfig(readConfigFile(cfgFile), cfgFile) : {};
  const cfgDir = cfgFile ? dirname(resolve(cfgFile)) : process.cwd();
  const seedStart = flags.seedStart !== undefined ? parseSeed('--seed-start', flags.seedStart, 1n) : cfg.seedStart !== undefined ? BigInt(cfg.seedStart) : undefined;
  const optionSets = flags.opts !== undefined ? splitOptionSets(flags.opts) : (cfg.options ?? [...DEFAULT_OPTION_SETS]);
  if (flags.opts !== undefined && (flags.opts.trim() === '' || optionSets.length === 0)) throw errBadOption('--opts', flags.opts, "option sets such as '-O0;-O2 -flto'");
  const limits = resolveLimits(flags, cfg);
  const size = flags.size !== undefined ? parseSize(flags.size) : (cfg.size ?? 'medium');
  const policy = flags.policy !== undefined ? loadPolicy(flags.policy, size) : configPolicy(cfg, cfgFile, cfgDir, size);
  const mode = flags.mode ?? cfg.mode ?? DEFAULT_MODE;
  if (!isModeChoice(mode)) throw errBadOption('--mode', mode, `one of ${MODE_CHOICES.join(', ')}`);
  const ubShare = flags.ubShare !== undefined ? parseShare('--ub-share', flags.ubShare) : 0;
  // An EMI variant must be provably equivalent to its base: a relaxed base may have UB.
  if (ubShare > 0 && flags.emi !== undefined && flags.emi !== '0') throw errBadOption('--ub-share', flags.ubShare!, 'no --emi with it (EMI variants need a UB-free base)');
  if (flags.sanitizers && ubShare > 0) throw errBadOption('--ub-share', flags.ubShare!, 'no --ub-share with --sanitizers (sanitizer testing draws its own UB programs)');
  if (flags.sanitizers && flags.emi !== undefined && flags.emi !== '0') throw errBadOption('--emi', flags.emi, 'no --emi with --sanitizers');
  const compilerSpecs = flags.compilers !== undefined ? splitList('--compilers', flags.compilers) : cfg.compilers;
  // Detected cross compilers are listed by `kiln compilers` but tested only when named: a
  // campaign generates for one target model.
  const compilers = compilerSpecs ? await resolveCompilers(compilerSpecs, process.env, cfgFile && !flags.compilers ? cfgDir : process.cwd()) : (await detectCompilers()).filter((c) => c.target === undefined);
  if (compilers.length === 0) throw errUnknownCompiler('(none)', 'no gcc, clang, tcc, pcc or cc found on PATH; name one with --compilers');
  const configurations = buildMatrix(compilers, optionSets);
  if (flags.sanitizers && sanitizerMatrix(configurations).tested.length === 0) {
    throw errBadOption('--compilers', compilerSpecs?.join(',') ?? compilers.map((c) => c.name).join(','), 'at least one gcc or clang driver with --sanitizers (they are the compilers with -fsanitize)');
  }
  if (flags.sanitizers && configurations.some((c) => c.compiler.target !== undefined || configTarget(c) !== LP64)) {
    throw errBadOption('--compilers', compilerSpecs?.join(',') ?? '', 'host (x86-64) gcc and clang configurations with --sanitizers (sanitized binaries run natively)');
  }
  const targets = commonTarget(configurations);
  if (!targets.target) {
    throw errBadOption('--compilers', compilerSpecs?.join(',') ?? '', `configurations of one target model, not ${targets.all.map((t) => t.name).join(' and ')} together (run one campaign per target)`);
  }
  return {
    out: flags.out ?? cfg.out ?? 'kiln-out',
    compilers,
    configurations,
    optionSets,
    limits,
    // The programs are generated and interpreted for the target the binaries run on.
    policy: { ...policy, target: targets.target.name },
    mode,
    rerun: flags.rerun ?? true,
    maxPerBucket: maxPerBucket !== undefined ? (maxPerBucket ?? undefined) : cfg.maxPerBucket !== undefined ? (cfg.maxPerBucket === 'none' ? undefined : cfg.maxPerBucket) : DEFAULT_MAX_PER_BUCKET,
    jobs: jobs ?? (cfg.jobs !== undefined ? checkJobs(cfg.jobs, (expected) => errBadConfig(cfgFile!, `field 'jobs': ${cfg.jobs} is too many: expected ${expected}`)) : Math.min(availableParallelism(), maxJobs())),
    timeMs: timeMs ?? cfg.time,
    maxTests: tests ?? cfg.tests,
    seedStart,
    resume: undefined,
    reduce: flags.reduce === true,
    ...(ubShare ? { ubShare } : {}),
    ...(flags.emi !== undefined ? { emi: parseCount('--emi', flags.emi, 0, 0) } : {}),
    ...(flags.sanitizers ? { sanitizers: true } : {}),
  };
}

async function resolveResume(flags: FuzzFlags, jobs: number | undefined, timeMs: number | undefined, tests: number | undefined, maxPerBucket: number | null | undefined): Promise<FuzzSettings> {
  for (const k of FIXED_ON_RESUME) {
    const v = flags[k];
    if (v !== undefined) throw errBadOption(`--${k.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}`, String(v), 'no value with --resume (a resumed campaign keeps its own settings)');
  }
  const out = flags.out ?? 'kiln-out';
  // Read-only first: nothing is written until the stored settings and compilers check out.
  const store = KilnStore.open(out, 'read');
  let campaign: CampaignRow | undefined;
  try {
    campaign = store.latestCampaign();
  } finally {
    store.close();
  }
  if (!campaign) throw errState(`no campaign to resume in ${out}`, "start one with 'kiln fuzz'");
  const stored = storedSettings(campaign, store.path);
  const storedCompilers = campaign.compilers as { command: string; name: string; version: string }[];
  const compilers = await resolveCompilers(storedCompilers.map((c) => c.command));
  const renamed = compilers.map((c, i) => ({ ...c, name: storedCompilers[i]?.name ?? c.name }));
  return {
    out,
    compilers: renamed,
    configurations: buildMatrix(renamed, stored.optionSets),
    ...stored,
    rerun: flags.rerun === false ? false : stored.rerun,
    maxPerBucket: maxPerBucket !== undefined ? (maxPerBucket ?? undefined) : stored.maxPerBucket,
    // The campaign's own -j, unless given again; a smaller machine runs as many as it can.
    jobs: jobs ?? Math.min(stored.jobs ?? availableParallelism(), maxJobs()),
    timeMs,
    maxTests: tests ?? campaign.maxTests ?? undefined,
    seedStart: undefined,
    resume: campaign,
    reduce: flags.reduce === true,
  };
}

function storedSettings(c: CampaignRow, dbPath: string): StoredSettings {
  const s = c.config as Partial<StoredSettings> | null;
  if (!s || !Array.isArray(s.optionSets) || !s.limits || !s.policy || !Array.isArray(c.compilers)) {
    throw errDatabase(dbPath, `campaign ${c.id} has no usable settings to resume`);
  }
  let policy: Policy;
  try {
    policy = parsePolicy(s.policy);
  } catch (e) {
    if (e instanceof PolicyError) throw errDatabase(dbPath, `campaign ${c.id}: stored policy: ${e.message}`);
    throw e;
  }
  const step = (x: { timeoutMs: number; memoryMb?: number | null }) => ({ timeoutMs: x.timeoutMs, memoryMb: x.memoryMb ?? undefined });
  const jobs = typeof s.jobs === 'number' && Number.isInteger(s.jobs) && s.jobs >= 1 ? s.jobs : undefined;
  // Campaigns from before the cap have none stored: they keep the default, as a new one would.
  const cap = s.maxPerBucket === null ? undefined : typeof s.maxPerBucket === 'number' && s.maxPerBucket >= 1 ? s.maxPerBucket : DEFAULT_MAX_PER_BUCKET;
  return {
    optionSets: s.optionSets,
    limits: { compile: step(s.limits.compile), run: step(s.limits.run) },
    policy,
    mode: typeof s.mode === 'string' && isModeChoice(s.mode) ? s.mode : 'csmith',
    rerun: s.rerun ?? true,
    maxPerBucket: cap,
    ...(jobs !== undefined ? { jobs } : {}),
    ...(typeof s.ubShare === 'number' && s.ubShare > 0 && s.ubShare <= 1 ? { ubShare: s.ubShare } : {}),
    ...(typeof s.emi === 'number' && Number.isInteger(s.emi) && s.emi > 0 ? { emi: s.emi } : {}),
    ...(s.sanitizers === true ? { sanitizers: true } : {}),
  };
}

/** A share: a number from 0 to 1. */
function parseShare(option: string, v: string): number {
  const x = Number(v);
  if (v.trim() === '' || !Number.isFinite(x) || x < 0 || x > 1) throw errBadOption(option, v, 'a share from 0 to 1, such as 0.2');
  return x;
}

/** `--max-per-bucket`: an integer ≥ 1, or `none` (null) for no cap. */
function parseMaxPerBucket(v: string): number | null {
  if (/^(none|unlimited)$/i.test(v.trim())) return null;
  return parseCount('--max-per-bucket', v, 1, 1);
}

/** Refuses more jobs than this machine can hold (each is a generator process plus a compile). */
function checkJobs(jobs: number, fail: (expected: string) => Error): number {
  const bound = maxJobs();
  if (jobs <= bound) return jobs;
  const m = thisMachine();
  throw fail(
    `at most ${bound} on this machine (${m.cores} cores, ${(m.memoryMb / 1024).toFixed(1)} GiB of memory; each job needs about ${JOB_MEMORY_MB} MiB: a generator process and a compile)`,
  );
}

function resolveLimits(flags: FuzzFlags, cfg: FuzzConfig): Limits {
  const mem = (flag: string | undefined, fromCfg: number | false | undefined, fallback: number | undefined): number | undefined => {
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
      timeoutMs: positive('--compile-timeout', flags.compileTimeout) ?? cfg.limits?.compile?.timeout ?? DEFAULT_LIMITS.compile.timeoutMs,
      memoryMb: mem(flags.memory, cfg.limits?.compile?.memory, DEFAULT_LIMITS.compile.memoryMb),
    },
    run: {
      timeoutMs: positive('--run-timeout', flags.runTimeout) ?? cfg.limits?.run?.timeout ?? DEFAULT_LIMITS.run.timeoutMs,
      memoryMb: mem(flags.memory, cfg.limits?.run?.memory, DEFAULT_LIMITS.run.memoryMb),
    },
  };
}

function configPolicy(cfg: FuzzConfig, file: string | undefined, dir: string, size: SizePreset): Policy {
  if (cfg.policy === undefined) return loadPolicy(undefined, size);
  if (typeof cfg.policy === 'string') return loadPolicy(resolve(dir, cfg.policy), size);
  try {
    return parsePolicy(cfg.policy, size);
  } catch (e) {
    if (e instanceof PolicyError) throw errBadConfig(file ?? 'config', `policy: ${e.message}`);
    throw e;
  }
}

function splitList(option: string, text: string): string[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (items.length === 0) throw errBadOption(option, text, 'a comma-separated list such as gcc,clang-14,/opt/cc/bin/cc');
  return items;
}
