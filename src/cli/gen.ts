import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { TARGETS } from '../c/target.js';
import { errBadOption, errFile } from '../diag/errors.js';
import { INJECT_KINDS } from '../edge/inject.js';
import { isModeChoice, MODE_CHOICES } from '../gen/mode.js';
import { maxJobs } from '../harness/config.js';
import { makeDirectory } from '../store/files.js';
import { checkSplitOutput, generateOne, type GenBatch } from './gen-files.js';
import { generateSeeds } from './gen-jobs.js';
import { generateRelaxedOne, generateUBOne, parseUBKind, processSink, type GenSink } from './gen-ub.js';
import { FOR_HELP, forCompilers } from './for-compilers.js';
import { loadPolicy, MAX_SEED, parseCount, parseSeed, reportAndExit, withTarget } from './util.js';

interface GenOptions {
  seed?: string;
  count?: string;
  output?: string;
  policy?: string;
  size?: string;
  json?: boolean;
  mode?: string;
  ub?: string;
  relax?: boolean;
  target?: string;
  jobs?: string;
  for?: string;
}

/** Registers `kiln gen`. */
export function registerGen(program: Command): void {
  program
    .command('gen')
    .description('generate UB-free C programs whose output is known (generate, execute, repair)')
    .option('-s, --seed <n>', 'seed of the (first) program', '1')
    .option('-n, --count <k>', 'generate K programs, seeds N … N+K-1 (needs -o DIR)')
    .option(
      '-o, --output <path>',
      'output file (one program), or directory (with --count, or for a yarpgen program); default: stdout',
    )
    .option('-j, --jobs <n>', 'with --count: processes at once (default: one per core); same files for any N')
    .option('--policy <file>', 'generation policy (YAML or JSON; any subset of fields)')
    .option('--size <preset>', 'program size: small, medium (Csmith-like, default) or large')
    .option('--mode <mode>', `generation mode: ${MODE_CHOICES.join(', ')} (mixed draws one per seed)`, 'csmith')
    .option(
      '--target <name>',
      `target model the program is generated and interpreted for: ${TARGETS.map((t) => t.name).join(', ')} ` +
        `(default x86_64, or the policy's)`,
    )
    .option('--for <compilers>', FOR_HELP)
    .option('--json', 'print one JSON object per program: seed, file, expected, lines, repairs, genMs, flow, …')
    .option(
      '--ub <kind>',
      `undefined behaviour on purpose: one UB of this kind on the executed path, nothing undefined before ` +
        `it (${INJECT_KINDS.join(', ')}); --json gives ub: {kind, file, line, column}`,
    )
    .option(
      '--relax',
      "CsmithEdge's relaxations (policy section relax): null and dangling pointers, dropped initialisers, " +
        'gotos anywhere, unchecked indices, parameter addresses, read/write conflicts; the first line gives ' +
        'the expected output only when the interpreter finds the executed path UB-free',
    )
    .addHelpText(
      'after',
      `
A yarpgen program is several files, compiled together (cc init.c func.c driver.c): init.h
declares the globals, init.c defines them and gives them values, func.c holds the test
functions, driver.c holds main and the checksum. So -o names a directory for it (created if
needed; -o X.c is an error), with --count each yarpgen program gets a directory DIR/kiln-N/,
and on stdout each file follows a '// ==> NAME <==' line.

Examples:
  kiln gen --seed 42 -o prog.c            write one program; its first line states the expected output
  kiln gen --seed 1 --count 100 -o progs  write progs/kiln-1.c … progs/kiln-100.c
  kiln gen --seed 3 --mode yarpgen -o t3  write t3/init.h, t3/init.c, t3/func.c, t3/driver.c
  kiln gen --seed 4 --for gcc-12,tcc -o p.c  a program both compilers accept (no _BitInt, no vectors)
  kiln gen --seed 9 --target m68k        a program for m68k (ILP32, big-endian) with m68k's expected output
  kiln gen --seed 7 --json                print the program's expected output and statistics
  kiln gen --seed 5 --ub shift -o s.c     a program whose first undefined act is a bad shift, at a line it names
  kiln gen --seed 9 --relax --json        a relaxed program for crash testing: relaxations drawn, sites, UB found`,
    )
    .action(async (opts: GenOptions) => {
      try {
        await runGen(opts);
      } catch (e) {
        reportAndExit(e);
      }
    });
}

async function runGen(opts: GenOptions): Promise<void> {
  const policy = await forCompilers(withTarget(loadPolicy(opts.policy, opts.size), opts.target), opts.for);
  const mode = opts.mode ?? 'csmith';
  if (!isModeChoice(mode)) throw errBadOption('--mode', mode, `one of ${MODE_CHOICES.join(', ')}`);
  const seed = parseSeed('--seed', opts.seed, 1n);
  const count = opts.count === undefined ? undefined : parseCount('--count', opts.count, 1, 1);
  // Every seed written must be one `--seed` accepts back.
  if (count !== undefined && seed + BigInt(count) - 1n > MAX_SEED) {
    throw errBadOption(
      '--count',
      String(count),
      `at most ${MAX_SEED - seed + 1n} from seed ${seed}: seeds end at ${MAX_SEED} (2^63 - 1)`,
    );
  }
  const ub = opts.ub === undefined ? undefined : parseUBKind(opts.ub, mode);
  if (opts.relax && ub !== undefined)
    throw errBadOption('--relax', 'on', 'no --ub with it (a relaxed program has its own undefined behaviour)');
  if (opts.relax && mode !== 'csmith')
    throw errBadOption('--mode', mode, 'csmith with --relax (the relaxations rewrite csmith-mode programs)');
  if (count === undefined && mode === 'yarpgen' && opts.output) checkSplitOutput(opts.output);
  if (count !== undefined) {
    if (!opts.output) throw errBadOption('--count', String(count), 'an output directory too (-o DIR)');
    try {
      makeDirectory(opts.output);
    } catch (e) {
      throw errFile(opts.output, `cannot create directory: ${(e as Error).message}`);
    }
    const batch: GenBatch = { policy, mode, ub, relax: !!opts.relax, output: opts.output, json: !!opts.json };
    const jobs =
      opts.jobs === undefined ? Math.min(availableParallelism(), count) : parseCount('--jobs', opts.jobs, 1, 1);
    if (jobs > maxJobs()) throw errBadOption('--jobs', opts.jobs!, `at most ${maxJobs()} on this machine`);
    // A count on a terminal, unless JSON lines are printed there already.
    const progress =
      process.stderr.isTTY && !opts.json && count > 1
        ? (done: number) => void process.stderr.write(`\rkiln gen: ${done}/${count} programs`)
        : undefined;
    // With a count on the terminal, a message first clears the count's line.
    const sink: GenSink = progress
      ? { out: processSink.out, err: (text) => processSink.err(`\r\x1b[K${text}`) }
      : processSink;
    const discarded = await generateSeeds(seed, count, jobs, batch, sink, progress);
    if (progress) process.stderr.write('\n');
    const dropped = discarded ? ` (${discarded} seeds discarded)` : '';
    if (!opts.json) process.stderr.write(`kiln gen: wrote ${count - discarded} programs to ${opts.output}${dropped}\n`);
    return;
  }
  const output = opts.output;
  if (ub !== undefined) {
    if (!generateUBOne(seed, policy, ub, output, !!opts.json)) process.exitCode = 1;
    return;
  }
  if (opts.relax) {
    if (!generateRelaxedOne(seed, policy, output, !!opts.json)) process.exitCode = 1;
    return;
  }
  if (!generateOne(seed, policy, mode, output === undefined ? undefined : () => output, !!opts.json, processSink))
    process.exitCode = 1;
}
