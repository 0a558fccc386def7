#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { reportAndExit, usageError } from './util.js';

/**
 * Kiln's commands in help order, each loaded only when wanted: a command's module pulls in its
 * part of Kiln (the store, the queue's Redis client, the text reducer's C parser), and loading
 * them all cost `kiln gen` about 0.4 s of start-up per process.
 */
const COMMANDS: Readonly<Record<string, () => Promise<(program: Command) => void>>> = {
  gen: async () => (await import('./gen.js')).registerGen,
  emi: async () => (await import('./emi.js')).registerEmi,
  stats: async () => (await import('./stats.js')).registerStats,
  policy: async () => (await import('./policy.js')).registerPolicy,
  fuzz: async () => (await import('./fuzz.js')).registerFuzz,
  compilers: async () => (await import('./compilers.js')).registerCompilers,
  findings: async () => (await import('./findings.js')).registerFindings,
  reduce: async () => (await import('./reduce.js')).registerReduce,
  triage: async () => (await import('./triage.js')).registerTriage,
  known: async () => (await import('./known.js')).registerKnown,
  check: async () => (await import('./check.js')).registerCheck,
  report: async () => (await import('./report.js')).registerReport,
  worker: async () => (await import('./worker.js')).registerWorker,
};

/**
 * The `kiln` command: a thin layer over the library (every command can be run from code too).
 * With `argv`, only the command it names is registered (every command when it names none, or
 * an unknown one, so help and suggestions see them all).
 */
export async function buildCli(argv?: readonly string[]): Promise<Command> {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const program = new Command();
  program
    .name('kiln')
    .description(
      'Kiln finds bugs in C compilers: it generates UB-free C programs whose output it knows, runs them ' +
        'through compilers and options, and turns every crash, hang and wrong result into a small, ' +
        'deduplicated test case.',
    )
    .version(pkg.version, '-V, --version')
    // Commander's own error text is replaced by Kiln's coded one-line form (see usageError);
    // subcommands inherit both settings because they are registered after this.
    .configureOutput({ outputError: () => undefined })
    .exitOverride();
  const named = argv?.slice(2).find((a) => !a.startsWith('-'));
  const names = named !== undefined && Object.hasOwn(COMMANDS, named) ? [named] : Object.keys(COMMANDS);
  for (const register of await Promise.all(names.map((n) => COMMANDS[n]!()))) register(program);
  return program;
}

async function main(): Promise<void> {
  // `kiln gen | head`: a reader that goes away is the normal end of output, not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  const program = await buildCli(process.argv);
  try {
    await program.parseAsync(process.argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      const coded = usageError(e, program, process.argv.slice(2));
      if (coded) reportAndExit(coded);
      // Help or version text (already printed); `kiln` alone prints help and exits 2.
      process.exit(e.exitCode === 0 ? 0 : 2);
    }
    throw e;
  }
}

void main();
