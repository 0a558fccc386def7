import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { errBadOption, errFile } from '../diag/errors.js';
import { checkProgram, probeTools, type CheckOptions, type CheckResult } from '../edge/check.js';
import { CHECK_TOOLS, type CheckTool } from '../edge/reports.js';
import { parseDuration, reportAndExit } from './util.js';

interface CheckFlags {
  json?: boolean;
  tools?: string;
  clang?: string;
  gcc?: string;
  cflags?: string;
  runTimeout?: string;
  toolTimeout?: string;
  evaTimeout?: string;
}

/** Registers `kiln check`. */
export function registerCheck(program: Command): void {
  program
    .command('check')
    .argument(
      '<files...>',
      'C files to check, each a program; a folder is one program of all its .c files (a split Kiln program)',
    )
    .description(
      'check C programs for undefined behaviour on their executed path, as CsmithEdge validates: ' +
        'AddressSanitizer, then MemorySanitizer, then UBSan (clang), then valgrind, then Frama-C Eva, each ' +
        'where installed, stopping at the first report. Prints the report (tool, kind, file:line) or "clean". ' +
        'Exit status: 0 all clean (every tool that could run finished and found nothing), 1 UB found, 2 ' +
        'incomplete (a tool timed out, failed, or left part of the program unchecked) or could not check (does ' +
        'not compile, does not terminate, no tool).',
    )
    .option(
      '--json',
      'one JSON object per program: file, verdict (clean|ub|incomplete|error), report or reason, and what ' +
        'each tool did',
    )
    .option('--tools <list>', `comma-separated tools to run, in this order (default: ${CHECK_TOOLS.join(',')})`)
    .option('--clang <cmd>', 'clang driver for the sanitizers', 'clang')
    .option('--gcc <cmd>', 'compiler of the plain build (also what valgrind runs)', 'gcc')
    .option('--cflags <flags>', "extra flags for every build, e.g. '-I include -DN=3'")
    .option(
      '--run-timeout <duration>',
      'limit of the plain run: a program that runs longer "does not terminate"',
      '10s',
    )
    .option('--tool-timeout <duration>', 'limit of each sanitizer and valgrind run', '120s')
    .option('--eva-timeout <duration>', "limit of Frama-C's Eva", '300s')
    .action(async (files: string[], flags: CheckFlags) => {
      try {
        process.exitCode = await runCheck(files, flags);
      } catch (e) {
        reportAndExit(e);
      }
    });
}

function parseTools(list: string | undefined): CheckTool[] | undefined {
  if (list === undefined) return undefined;
  const tools = list
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  for (const t of tools)
    if (!(CHECK_TOOLS as readonly string[]).includes(t))
      throw errBadOption('--tools', list, `a comma-separated list of ${CHECK_TOOLS.join(', ')}`);
  if (tools.length === 0) throw errBadOption('--tools', list, 'at least one tool');
  return tools as CheckTool[];
}

/** The translation units of one argument: the file itself, or every `.c` file of a folder. */
function programSources(arg: string): string[] {
  if (!existsSync(arg)) throw errFile(arg, 'no such file or folder');
  if (statSync(arg).isDirectory()) {
    const units = readdirSync(arg)
      .filter((f) => f.endsWith('.c'))
      .sort()
      .map((f) => join(arg, f));
    if (units.length === 0)
      throw errFile(arg, 'a folder with no .c file', 'give C files, or a folder holding the .c files of one program');
    return units;
  }
  return [arg];
}

/** One line for a result, as a compiler engineer reads it. */
export function describeResult(file: string, r: CheckResult): string {
  if (r.verdict === 'clean') {
    const ran = r.runs.filter((x) => x.status === 'clean').map((x) => x.tool);
    const notes = r.runs
      .filter((x) => x.status === 'clean' && x.detail !== undefined)
      .map((x) => `; ${x.tool}: ${x.detail}`);
    return `${file}: clean (${ran.join(', ')}${notes.join('')})`;
  }
  if (r.verdict === 'incomplete') return `${file}: incomplete: ${r.message}`;
  if (r.verdict === 'ub') {
    const u = r.report;
    const at =
      u.file !== undefined
        ? `${u.file}${u.line !== undefined ? `:${u.line}` : ''}${u.column !== undefined ? `:${u.column}` : ''}`
        : 'unknown location';
    return `${file}: ub: ${u.tool} ${u.kind} at ${at}: ${u.message}`;
  }
  return `${file}: could not check: ${r.message}`;
}

async function runCheck(files: string[], flags: CheckFlags): Promise<number> {
  const opts: CheckOptions = {
    ...(flags.tools !== undefined ? { tools: parseTools(flags.tools) } : {}),
    ...(flags.clang !== undefined ? { clang: flags.clang } : {}),
    ...(flags.gcc !== undefined ? { gcc: flags.gcc } : {}),
    ...(flags.cflags !== undefined ? { cflags: flags.cflags.split(/\s+/).filter((f) => f !== '') } : {}),
    runTimeoutMs: parseDuration('--run-timeout', flags.runTimeout) ?? 10_000,
    toolTimeoutMs: parseDuration('--tool-timeout', flags.toolTimeout) ?? 120_000,
    evaTimeoutMs: parseDuration('--eva-timeout', flags.evaTimeout) ?? 300_000,
  };
  const programs = files.map((f) => ({ arg: f, sources: programSources(f) }));
  const avail = await probeTools(opts);
  let status = 0;
  for (const p of programs) {
    const r = await checkProgram(p.sources, avail, opts);
    if (flags.json) {
      const base = { file: p.arg, verdict: r.verdict, tools: r.runs };
      const body =
        r.verdict === 'ub'
          ? { ub: r.report }
          : r.verdict === 'error'
            ? { reason: r.reason, message: r.message }
            : r.verdict === 'incomplete'
              ? { message: r.message }
              : {};
      process.stdout.write(`${JSON.stringify({ ...base, ...body })}\n`);
    } else {
      process.stdout.write(`${describeResult(p.arg, r)}\n`);
    }
    // Incomplete is not clean: callers that take exit 0 as "no UB" (a reducer's guard) must not accept it.
    const s = r.verdict === 'clean' ? 0 : r.verdict === 'ub' ? 1 : 2;
    status = Math.max(status, s);
  }
  return status;
}
