// `kiln fuzz`'s flags merged over the configuration file over the defaults, and validated.
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { FuzzSettings } from '../campaign/settings.js';
import { errBadConfig, errBadOption, errUnknownCompiler } from '../diag/errors.js';
import { isModeChoice, MODE_CHOICES, type ModeChoice } from '../gen/mode.js';
import { parsePolicy, PolicyError, type Policy, type SizePreset } from '../gen/policy.js';
import { detectCompilers, resolveCompilers } from '../harness/compilers.js';
import { maxJobs, parseFuzzConfig, type FuzzConfig } from '../harness/config.js';
import { campaignMatrix, defaultOptionSets } from '../harness/configure.js';
import { splitOptionSets } from '../harness/matrix.js';
import { DEFAULT_MAX_PER_BUCKET } from '../store/cap.js';
import {
  checkConfigurations,
  checkJobs,
  parseMaxPerBucket,
  parseShare,
  resolveLimits,
  splitList,
  type FuzzFlags,
} from './fuzz-flags.js';
import { resolveResume } from './fuzz-resume.js';
import { loadPolicy, parseCount, parseDuration, parseSeed, parseSize, readConfigFile } from './util.js';

/** The generation mode of a campaign that names none. */
export const DEFAULT_MODE: ModeChoice = 'mixed';

/**
 * Merges flags over the configuration file over the defaults, and validates everything — compilers
 * included — before anything is written: a bad input leaves an existing output folder untouched.
 */
export async function resolveSettings(flags: FuzzFlags): Promise<FuzzSettings> {
  const jobs =
    flags.jobs !== undefined
      ? checkJobs(parseCount('--jobs', flags.jobs, 1, 1), (expected) => errBadOption('--jobs', flags.jobs!, expected))
      : undefined;
  const timeMs = parseDuration('--time', flags.time);
  if (timeMs !== undefined && timeMs <= 0)
    throw errBadOption('--time', flags.time!, 'a positive duration such as 90s, 10m or 2h');
  const tests = flags.tests !== undefined ? parseCount('--tests', flags.tests, 1, 1) : undefined;
  const maxPerBucket = flags.maxPerBucket !== undefined ? parseMaxPerBucket(flags.maxPerBucket) : undefined;
  if (flags.resume) return resolveResume(flags, jobs, timeMs, tests, maxPerBucket);

  const cfgFile = flags.config;
  const cfg: FuzzConfig = cfgFile ? parseFuzzConfig(readConfigFile(cfgFile), cfgFile) : {};
  const cfgDir = cfgFile ? dirname(resolve(cfgFile)) : process.cwd();
  const seedStart =
    flags.seedStart !== undefined
      ? parseSeed('--seed-start', flags.seedStart, 1n)
      : cfg.seedStart !== undefined
        ? BigInt(cfg.seedStart)
        : undefined;
  const givenSets = flags.opts !== undefined ? splitOptionSets(flags.opts) : cfg.options;
  if (flags.opts !== undefined && (flags.opts.trim() === '' || givenSets?.length === 0))
    throw errBadOption('--opts', flags.opts, "option sets such as '-O0;-O2 -flto'");
  const limits = resolveLimits(flags, cfg);
  const size = flags.size !== undefined ? parseSize(flags.size) : (cfg.size ?? 'medium');
  const policy = flags.policy !== undefined ? loadPolicy(flags.policy, size) : configPolicy(cfg, cfgFile, cfgDir, size);
  const mode = flags.mode ?? cfg.mode ?? DEFAULT_MODE;
  if (!isModeChoice(mode)) throw errBadOption('--mode', mode, `one of ${MODE_CHOICES.join(', ')}`);
  const ubShare = flags.ubShare !== undefined ? parseShare('--ub-share', flags.ubShare) : 0;
  // An EMI variant must be provably equivalent to its base: a relaxed base may have UB.
  if (ubShare > 0 && flags.emi !== undefined && flags.emi !== '0')
    throw errBadOption('--ub-share', flags.ubShare!, 'no --emi with it (EMI variants need a UB-free base)');
  if (flags.sanitizers && ubShare > 0)
    throw errBadOption(
      '--ub-share',
      flags.ubShare!,
      'no --ub-share with --sanitizers (sanitizer testing draws its own UB programs)',
    );
  if (flags.sanitizers && flags.emi !== undefined && flags.emi !== '0')
    throw errBadOption('--emi', flags.emi, 'no --emi with --sanitizers');
  const compilerSpecs = flags.compilers !== undefined ? splitList('--compilers', flags.compilers) : cfg.compilers;
  // Detected cross compilers are listed by `kiln compilers` but tested only when named: a
  // campaign generates for one target model.
  const compilers = compilerSpecs
    ? await resolveCompilers(compilerSpecs, process.env, cfgFile && !flags.compilers ? cfgDir : process.cwd())
    : (await detectCompilers()).filter((c) => c.target === undefined);
  if (compilers.length === 0)
    throw errUnknownCompiler('(none)', 'no gcc, clang, tcc, pcc or cc found on PATH; name one with --compilers');
  const optionSets = givenSets ?? (await defaultOptionSets(compilers));
  const configurations = await campaignMatrix(compilers, optionSets);
  const targets = checkConfigurations(configurations, compilerSpecs?.join(','), compilers, flags.sanitizers === true);
  // Several targets: each seed is generated once per target model; EMI variants and a queue's
  // workers generate for one.
  if (targets.length > 1 && flags.emi !== undefined && flags.emi !== '0')
    throw errBadOption(
      '--emi',
      flags.emi,
      `a campaign of one target model (these configurations have ${targets.map((t) => t.name).join(', ')})`,
    );
  if (targets.length > 1 && flags.queue !== undefined)
    throw errBadOption(
      '--queue',
      flags.queue,
      `a campaign of one target model (these configurations have ${targets.map((t) => t.name).join(', ')}); ` +
        'run one queued campaign per target',
    );
  return {
    out: flags.out ?? cfg.out ?? 'kiln-out',
    compilers,
    configurations,
    optionSets,
    limits,
    // The programs are generated and interpreted for the target the binaries run on.
    policy: { ...policy, target: targets[0]!.name },
    mode,
    rerun: flags.rerun ?? true,
    maxPerBucket:
      maxPerBucket !== undefined
        ? (maxPerBucket ?? undefined)
        : cfg.maxPerBucket !== undefined
          ? cfg.maxPerBucket === 'none'
            ? undefined
            : cfg.maxPerBucket
          : DEFAULT_MAX_PER_BUCKET,
    jobs:
      jobs ??
      (cfg.jobs !== undefined
        ? checkJobs(cfg.jobs, (expected) =>
            errBadConfig(cfgFile!, `field 'jobs': ${cfg.jobs} is too many: expected ${expected}`),
          )
        : Math.min(availableParallelism(), maxJobs())),
    timeMs: timeMs ?? cfg.time,
    maxTests: tests ?? cfg.tests,
    seedStart,
    resume: undefined,
    reduce: flags.reduce === true,
    ...(cfg.known ? { known: resolve(cfgDir, cfg.known) } : {}),
    ...(ubShare ? { ubShare } : {}),
    ...(flags.emi !== undefined ? { emi: parseCount('--emi', flags.emi, 0, 0) } : {}),
    ...(flags.sanitizers ? { sanitizers: true } : {}),
  };
}

/** The configuration file's policy: a file beside it, or one inline. */
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
