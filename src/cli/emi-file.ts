// `kiln emi FILE.c` (Orion variants of any C file, from gcov's line counts) and the flags both
// forms of `kiln emi` share.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { errBadOption, errFile, errUsage } from '../diag/errors.js';
import { resolveCompiler } from '../harness/compilers.js';
import { gcovFor, orionFile } from '../reduce/text/orion-file.js';
import { makeDirectory } from '../store/files.js';
import { parseCount, parseDuration, parseSeed } from './util.js';
/** Flags of `kiln emi`. */
export interface EmiOptions {
  seed?: string;
  mode?: string;
  variants?: string;
  output?: string;
  policy?: string;
  size?: string;
  json?: boolean;
  cc?: string;
  gcov?: string;
  cflags?: string;
  runTimeout?: string;
}

/** Options of the generated-program form only, and of the file form only (each refused in the other). */
const GENERATED_ONLY = ['mode', 'policy', 'size'] as const;
export const FILE_ONLY = ['cc', 'gcov', 'cflags', 'runTimeout'] as const;

/** Refuses options that belong to the other form of the command. */
export function refuseOptions(opts: EmiOptions, names: readonly (keyof EmiOptions)[], form: string): void {
  const given = names.filter((n) => opts[n] !== undefined);
  if (given.length > 0)
    throw errUsage(
      'KILN_BAD_ARGUMENTS',
      `--${given[0]!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} does not apply to ${form}`,
      "see 'kiln emi --help' for the options of each form",
    );
}

/** Creates the output folder named by -o. */
export function outputDirectory(opts: EmiOptions): string {
  if (!opts.output) throw errBadOption('--output', '(none)', 'an output directory (-o DIR)');
  try {
    makeDirectory(opts.output);
  } catch (e) {
    throw errFile(opts.output, `cannot create directory: ${(e as Error).message}`);
  }
  return opts.output;
}

/** `kiln emi FILE.c`: Orion variants of a file of the user's, written only when the file is usable. */
export async function runEmiFile(file: string, opts: EmiOptions): Promise<void> {
  refuseOptions(opts, GENERATED_ONLY, 'a C file (it is for generated programs)');
  const seed = parseSeed('--seed', opts.seed, 1n);
  const k = parseCount('--variants', opts.variants, 10, 0);
  const runTimeoutMs = parseDuration('--run-timeout', opts.runTimeout) ?? 10_000;
  if (runTimeoutMs <= 0) throw errBadOption('--run-timeout', opts.runTimeout ?? '', 'a positive duration such as 10s');
  if (!opts.output) throw errBadOption('--output', '(none)', 'an output directory (-o DIR)');
  let raw: Buffer;
  try {
    raw = readFileSync(file);
  } catch (e) {
    throw errFile(file, (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message);
  }
  const text = raw.toString('utf8');
  // Variants are written as UTF-8: a file that is not would come out altered, even as variant 0.
  if (!Buffer.from(text, 'utf8').equals(raw))
    throw errFile(
      file,
      'not UTF-8 text',
      'convert it to UTF-8 (iconv -f latin1 -t utf-8), or keep non-ASCII bytes in escapes',
    );
  const compiler = await resolveCompiler(opts.cc ?? 'gcc');
  const result = await orionFile(file, text, {
    seed: String(seed),
    variants: k,
    compiler,
    gcov: opts.gcov ?? gcovFor(compiler),
    cflags: (opts.cflags ?? '').split(/\s+/).filter((f) => f !== ''),
    runTimeoutMs,
  });
  // Only a usable file gets an output folder: a refused one leaves nothing behind.
  const out = outputDirectory(opts);
  const stem = basename(file).replace(/\.c$/, '');
  for (const m of result.members) {
    const target = join(out, `${stem}-v${m.variant}.c`);
    try {
      writeFileSync(target, m.text);
    } catch (e) {
      throw errFile(target, `cannot write: ${(e as Error).message}`);
    }
    if (opts.json)
      process.stdout.write(
        `${JSON.stringify({
          file: target,
          variant: m.variant,
          expected: result.expected,
          deleted: m.deleted,
          diffLines: m.diffLines,
        })}\n`,
      );
  }
  for (const d of result.dropped) {
    if (opts.json) process.stdout.write(`${JSON.stringify({ variant: d.variant, dropped: d.reason })}\n`);
    else process.stderr.write(`kiln emi: variant ${d.variant} dropped: ${d.reason}\n`);
  }
  const changed = result.members.filter((m) => m.deleted > 0).length;
  process.stderr.write(
    `kiln emi: ${file}: ${result.candidates} statements never ran; wrote the original ` +
      `and ${result.members.length - 1} variants (${changed} with deletions) ` +
      `to ${out}; ${result.dropped.length} dropped\n`,
  );
}
