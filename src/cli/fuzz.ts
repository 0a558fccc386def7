import { availableParallelism } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { errBadConfig, errBadOption, errDatabase, errFile, errState, errUnknownCompiler } from '../diag/errors.js';
import { isModeChoice, MODE_CHOICES, type ModeChoice } from '../gen/mode.js';
import { parsePolicy, PolicyError, type Policy, type SizePreset } from '../gen/policy.js';
import { runCampaign, type CampaignSummary, type ProgramReport } from '../harness/campaign.js';
import { detectCompilers, resolveCompilers, type Compiler } from '../harness/compilers.js';
import { JOB_MEMORY_MB, maxJobs, memoryMb, parseFuzzConfig, thisMachine, type FuzzConfig } from '../harness/config.js';
import { draftProgram, hangCheckUpdate } from '../harness/findings.js';
import { buildMatrix, commonTarget, DEFAULT_LIMITS, DEFAULT_OPTION_SETS, splitOptionSets, type Configuration, type Limits } from '../harness/matrix.js';
import { sweepStaleTempRoots } from '../harness/tempdir.js';
import { DEFAULT_MAX_PER_BUCKET } from '../store/cap.js';
import { FINDINGS_DIR, KilnStore, type CampaignRow, type RecordResult } from '../store/store.js';
import { BackgroundReducer } from './background-reduce.js';
import { checkCompilers } from './compiler-check.js';
import { recordReduction } from './reduce-finding.js';
import { Progress } from './progress.js';
import { ReportRefresher } from './report.js';
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
  ubShare?: string;
  emi?: string;
}

/** The settings of a campaign as stored with it (and reused by `--resume`). */
export interface StoredSettings {
  readonly optionSets: readonly string[];
  readonly limits: Limits;
  readonly policy: Policy;
  readonly mode: ModeChoice;
  readonly rerun: boolean;
  /** Concurrent jobs the campaign was started with (a default for --resume). */
  readonly jobs?: number;
  /** Findings stored per bucket (the first N and the smallest); undefined: no cap. */
  readonly maxPerBucket?: number | undefined;
  /** `--ub-share F`: the share of csmith-mode programs relaxed as CsmithEdge does (0: none). */
  readonly ubShare?: number;
  /** `--emi K`: each base program is tested with K EMI variants (0 or absent: off). */
  readonly emi?: number;
}

/** Fully resolved settings of one `kiln fuzz` session. */
export interface FuzzSettings extends StoredSettings {
  readonly out: string;
  readonly compilers: readonly Compiler[];
  readonly configurations: readonly Configuration[];
  readonly jobs: number;
  readonly timeMs: number | undefined;
  /** Programs to test in all (for a resumed campaign: including those already done). */
  readonly maxTests: number | undefined;
  /** First seed of a new campaign; undefined: after every seed the store has used. */
  readonly seedStart: bigint | undefined;
  /** The campaign being resumed. */
  readonly resume: CampaignRow | undefined;
  /** Reduce each new bucket's first finding in the background. */
  readonly reduce: boolean;
}

/** Registers `kiln fuzz`. */
export function registerFuzz(program: Command): void {
  program
    .command('fuzz')
    .description('run a campaign: generate programs, compile and run them with every compiler and option set, keep every failure')
    .option('--config <file>', 'campaign configuration (YAML or JSON; see docs/config.md)')
    .option('--compilers <list>', 'comma-separated compiler commands or paths (default: every gcc, clang, tcc, pcc, cc on PATH)')
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
    .option('--reduce', 'reduce the first finding of each new bucket in the background (one job): reduced.c and a bug report in its folder')
    .option('--emi <k>', 'test K EMI variants of each program as well (proven equivalent by the interpreter; see kiln emi)')
    .option('--max-per-bucket <n>', `findings stored per bucket: the first N and the smallest program; the rest are counted (default ${DEFAULT_MAX_PER_BUCKET}; none for no cap)`)
    .addHelpText(
      'after',
      `
Examples:
  kiln fuzz                                   every compiler on PATH at -O0 -O1 -O2 -Os -O3, all cores
  kiln fuzz --compilers gcc,clang-15 --opts '-O0;-O3 -march=native' --time 2h
  kiln fuzz --resume                          continue the latest campaign in ./kiln-out
  kiln fuzz --time 1h --reduce                reduce each new bug to a small test case as it is found
Ctrl-C stops cleanly (a second Ctrl-C aborts); 'kiln findings' lists what was found.`,
    )
    .action(async (flags: FuzzFlags) => {
      try {
        const settings = await resolveSettings(flags);
        await fuzz(settings);
      } catch (e) {
        reportAndExit(e);
      }
    });
}

/** The generation mode of a campaign that names none. */
const DEFAULT_MODE: ModeChoice = 'mixed';

/** Flags a resumed campaign takes from its stored settings instead. */
const FIXED_ON_RESUME: readonly (keyof FuzzFlags)[] = ['config', 'compilers', 'opts', 'seedStart', 'policy', 'size', 'mode', 'compileTimeout', 'runTimeout', 'memory', 'ubShare', 'emi'];

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
  const compilerSpecs = flags.compilers !== undefined ? splitList('--compilers', flags.compilers) : cfg.compilers;
  // Detected cross compilers are listed by `kiln compilers` but tested only when named: a
  // campaign generates for one target model.
  const compilers = compilerSpecs ? await resolveCompilers(compilerSpecs, process.env, cfgFile && !flags.compilers ? cfgDir : process.cwd()) : (await detectCompilers()).filter((c) => c.target === undefined);
  if (compilers.length === 0) throw errUnknownCompiler('(none)', 'no gcc, clang, tcc, pcc or cc found on PATH; name one with --compilers');
  const configurations = buildMatrix(compilers, optionSets);
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

/** Runs one session of a campaign with resolved settings; resolves when it has stopped cleanly. */
export async function fuzz(s: FuzzSettings): Promise<CampaignSummary> {
  const checkMs = await checkCompilers(s);
  const store = KilnStore.open(s.out, 'write');
  const campaignId = s.resume
    ? s.resume.id
    : store.createCampaign({
        config: {
          optionSets: s.optionSets,
          limits: s.limits,
          policy: s.policy,
          mode: s.mode,
          rerun: s.rerun,
          jobs: s.jobs,
          timeMs: s.timeMs ?? null,
          maxPerBucket: s.maxPerBucket ?? null,
          ...(s.ubShare ? { ubShare: s.ubShare } : {}),
          ...(s.emi ? { emi: s.emi } : {}),
        } satisfies Omit<StoredSettings, 'maxPerBucket'> & Record<string, unknown>,
        compilers: s.compilers,
        seedStart: s.seedStart ?? store.nextUnusedSeed(),
        ...(s.maxTests !== undefined ? { maxTests: s.maxTests } : {}),
      });
  try {
    store.claimCampaign(campaignId);
  } catch (e) {
    store.close();
    throw e;
  }
  sweepStaleTempRoots();
  const progress = new Progress(process.stderr, `campaign ${campaignId}:`);
  const seeds = store.seedProgress(campaignId);
  const remaining = s.maxTests === undefined ? undefined : Math.max(0, s.maxTests - seeds.done);
  const knownBuckets = store.knownBuckets();
  say(progress, describeSession(s, campaignId, seeds, checkMs));
  if (s.resume) warnVersionChanges(progress, s);

  const stop = new AbortController();
  let interrupts = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts === 1) {
      progress.println(`kiln fuzz: ${sig}: stopping; tests in flight are abandoned and will run again on --resume (${sig === 'SIGINT' ? 'Ctrl-C' : sig} again aborts at once)`, process.stderr);
      stop.abort();
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  // The campaign's report.html, rewritten every few minutes and when the session ends.
  const report = new ReportRefresher(s.out, campaignId, (m) => progress.println(m, process.stderr));
  report.start();

  const ctx = { campaignId, limits: s.limits, policy: s.policy, ...(s.emi ? { emi: s.emi } : {}) };
  const reducer = s.reduce
    ? new BackgroundReducer(
        (dir, r) => {
          progress.println(`reduced ${basename(dir)}: ${r.reduction.original.lines} → ${r.reduction.lines} lines${r.triage ? `, fingerprint ${r.triage.fingerprint}` : ''} → ${r.bundle.reducedFile}`, process.stdout);
          try {
            recordReduction(dir, r, store);
          } catch {
            // The bundle is on disk; the store's copy of its size is a convenience.
          }
        },
        (dir, message) => progress.println(`kiln fuzz: could not reduce ${basename(dir)}: ${message}`, process.stderr),
        stop.signal,
      )
    : undefined;
  let summary: CampaignSummary | undefined;
  try {
    if (remaining === 0) {
      summary = { stoppedBy: 'tests', programs: 0, tests: 0, reruns: 0, confirmations: 0, unconfirmed: 0, elapsedMs: 0 };
    } else {
      summary = await runCampaign(
        {
          configurations: s.configurations,
          limits: s.limits,
          policy: s.policy,
          mode: s.mode,
          ...(s.ubShare ? { ubShare: s.ubShare } : {}),
          ...(s.emi ? { emi: s.emi } : {}),
          jobs: s.jobs,
          // Claimed from the store block by block: campaigns sharing --out never test one seed twice.
          seeds: store.campaignSeeds(campaignId, seeds.gaps),
          ...(remaining !== undefined ? { maxPrograms: remaining } : {}),
          ...(s.timeMs !== undefined ? { timeMs: s.timeMs } : {}),
          signal: stop.signal,
          rerunFailures: s.rerun,
        },
        {
          onTest: () => progress.test(),
          onProgram: (r) => {
            // Written and committed first, announced after: what is shown is never lost.
            const draft = draftProgram(r, ctx);
            let recorded: RecordResult;
            try {
              recorded = store.recordProgram(campaignId, draft, s.maxPerBucket !== undefined ? { maxPerBucket: s.maxPerBucket } : {});
            } catch (e) {
              // A full disk or a folder made read-only under us is the machine's problem, not Kiln's.
              const code = (e as { code?: string }).code;
              if (code && /^(E[A-Z]+|SQLITE_(FULL|IOERR.*|READONLY.*|CANTOPEN))$/.test(code)) throw errFile(s.out, `cannot store the results of seed ${r.seed}: ${(e as Error).message}`);
              throw e;
            }
            for (const id of announce(progress, r, draft, recorded, knownBuckets, s)) reducer?.add(join(s.out, FINDINGS_DIR, id));
          },
          onConfirm: (c) => {
            const u = hangCheckUpdate(campaignId, c, s.limits);
            store.setHangStatus(u.id, c.verdict, u.facts);
            progress.println(`finding ${u.id}: suspected ${c.result.config.compiler.name} hang ${c.verdict === 'confirmed' ? 'confirmed with the configured limit' : `cleared: it finished within the configured limit (${c.result.judgement.outcome})`}`, process.stdout);
          },
        },
      );
    }
  } finally {
    if (reducer) {
      // A campaign that ran its course waits for its reductions; one stopped by the clock or by
      // Ctrl-C cuts the running one short (its best program so far is written) and lists the rest.
      const natural = summary?.stoppedBy === 'tests' || summary?.stoppedBy === 'seeds';
      if (natural && reducer.busy) progress.println(`kiln fuzz: finishing ${reducer.pending + 1} reductions (Ctrl-C stops them)`, process.stderr);
      const left = await reducer.close(!natural || stop.signal.aborted);
      if (left.length) progress.println(`kiln fuzz: ${left.length} new buckets not reduced yet: kiln reduce ${left.map((d) => basename(d)).join(' ')} (in ${join(s.out, FINDINGS_DIR)})`, process.stderr);
    }
    progress.stop();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    store.endCampaign(campaignId, summary?.stoppedBy ?? 'error');
    const page = report.finish();
    if (page) process.stderr.write(`kiln fuzz: report: ${page}\n`);
  }
  const row = store.campaign(campaignId)!;
  store.close();
  if (!summary) throw new Error('campaign ended without a summary');
  if (summary.unconfirmed > 0) {
    process.stderr.write(`kiln fuzz: ${summary.unconfirmed} suspected hangs were not checked with the configured limit before the campaign ended; they are listed as suspected (their repro.sh checks with the full limit)\n`);
  }
  process.stdout.write(
    `kiln fuzz: campaign ${campaignId} stopped (${summary.stoppedBy}): this session ${summary.programs} programs, ${summary.tests} tests in ${(summary.elapsedMs / 1000).toFixed(1)} s; ` +
      `campaign total ${row.programs} programs, ${row.findings} findings, ${row.internal} internal; results in ${s.out}\n`,
  );
  return summary;
}

function describeSession(s: FuzzSettings, id: number, seeds: { done: number; gaps: bigint[]; next: bigint }, checkMs: number): string {
  const compilers = s.compilers.map((c) => `  ${c.name.padEnd(12)} ${c.version}`).join('\n');
  const head = s.resume
    ? `kiln fuzz: resuming campaign ${id}: ${seeds.done} programs done, ${seeds.gaps.length} claimed seeds not finished (run first), then seeds from ${seeds.next}`
    : `kiln fuzz: campaign ${id}, seeds from ${seeds.next}`;
  const check = `each compiled and ran a check program (${(checkMs / 1000).toFixed(1)} s)`;
  return `${head}; ${s.compilers.length} compilers × ${s.optionSets.length} option sets = ${s.configurations.length} configurations, ${check}; ${s.jobs} jobs; results in ${s.out}\n${compilers}`;
}

function warnVersionChanges(progress: Progress, s: FuzzSettings): void {
  const before = new Map((s.resume!.compilers as { name: string; version: string }[]).map((c) => [c.name, c.version]));
  for (const c of s.compilers) {
    const v = before.get(c.name);
    if (v !== undefined && v !== c.version) progress.println(`kiln fuzz: warning: ${c.name} changed version since the campaign started: was '${v}', now '${c.version}'`, process.stderr);
  }
}

/** Prints a finished program's findings; returns the ids of the findings that opened a new bucket. */
function announce(progress: Progress, r: ProgramReport, draft: ReturnType<typeof draftProgram>, recorded: RecordResult, known: Set<string>, s: FuzzSettings): string[] {
  const out = s.out;
  const fresh: string[] = [];
  const c = progress.counts;
  c.programs++;
  if (r.status !== 'tested') c.discarded++;
  if (r.status === 'error') progress.println(`kiln fuzz: KILN BUG: the generator failed on seed ${r.seed}: ${(r.reason ?? '').split('\n')[0]} (please report it)`, process.stderr);
  c.flaky += r.results.filter((x) => x.flaky).length;
  for (const x of r.results) progress.outcome(x.outcome);
  const outcomes = new Map(draft.findings.map((f) => [f.id, f]));
  for (const k of recorded.kept) {
    const f = outcomes.get(k.id)!;
    c.findings++;
    const isNew = !known.has(f.bucket);
    if (isNew) {
      known.add(f.bucket);
      c.newBuckets++;
      fresh.push(f.id);
    }
    const note = isNew ? ' [new bucket]' : k.as === 'smallest' ? ` [smallest of its bucket${k.replaced ? `, replaces ${k.replaced}` : ''}]` : '';
    const notes = `${f.hangStatus === 'suspected' ? ' [suspected: checking with the configured limit]' : ''}${f.nondeterministic ? ' [nondeterministic]' : ''}`;
    progress.println(`finding ${f.id}: ${f.outcome} with ${f.compiler}${f.options ? ' ' + f.options : ''} (seed ${r.seed})${note}${notes} → ${out}/findings/${f.id}`, process.stdout);
  }
  for (const d of recorded.dropped) {
    // Said once per bucket and session: the rest are counted (kiln findings shows how many).
    if (known.has(`${d.bucket}\0capped`)) continue;
    known.add(`${d.bucket}\0capped`);
    progress.println(
      `kiln fuzz: bucket ${d.bucket} holds its ${s.maxPerBucket} findings: further ones are counted, not stored, unless smaller (seed ${r.seed} and its outcome stay in the database; --max-per-bucket changes the cap)`,
      process.stderr,
    );
  }
  if (draft.internal) {
    c.internal++;
    progress.println(
      `kiln fuzz: KILN BUG (internal): seed ${r.seed}: every configuration prints '${draft.internal.actual}' but the interpreter expects '${draft.internal.expected}'; kept in ${out}/internal/${draft.internal.id} — please report it (not counted as a compiler bug)`,
      process.stderr,
    );
  }
  return fresh;
}

function say(progress: Progress, text: string): void {
  progress.println(text, process.stderr);
}
