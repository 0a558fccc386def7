#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerGen } from './gen.js';
import { registerEmi } from './emi.js';
import { registerPolicy } from './policy.js';
import { registerStats } from './stats.js';
import { registerFuzz } from './fuzz.js';
import { registerCompilers } from './compilers.js';
import { registerFindings } from './findings.js';
import { registerReduce } from './reduce-text.js';
import { registerTriage } from './triage.js';
import { reportAndExit, usageError } from './util.js';
import { registerCheck } from './check.js';
import { registerReport } from './report.js';
import { registerWorker } from './worker.js';

/** The `kiln` command: a thin layer over the library (every command can be run from code too). */
export function buildCli(): Command {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const program = new Command();
  program
    .name('kiln')
    .description('Kiln finds bugs in C compilers: it generates UB-free C programs whose output it knows, runs them through compilers and options, and turns every crash, hang and wrong result into a small, deduplicated test case.')
    .version(pkg.version, '-V, --version')
    // Commander's own error text is replaced by Kiln's coded one-line form (see usageError);
    // subcommands inherit both settings because they are registered after this.
    .configureOutput({ outputError: () => undefined })
    .exitOverride();
  registerGen(program);
  registerEmi(program);
  registerStats(program);
  registerPolicy(program);
  registerFuzz(program);
  registerCompilers(program);
  registerFindings(program);
  registerReduce(program);
  registerTriage(program);
  registerCheck(program);
  registerReport(program);
  registerWorker(program);
  return program;
}

async function main(): Promise<void> {
  // `kiln gen | head`: a reader that goes away is the normal end of output, not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  const program = buildCli();
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
