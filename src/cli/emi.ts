import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { errBadOption, errFile, errUnsupported } from '../diag/errors.js';
import { isModeChoice, MODE_CHOICES, modeFor } from '../gen/mode.js';
import { emiFamily } from '../mutate/index.js';
import { makeDirectory } from '../store/files.js';
import { loadPolicy, parseCount, parseSeed, reportAndExit } from './util.js';

interface EmiOptions {
  seed?: string;
  mode?: string;
  variants?: string;
  output?: string;
  policy?: string;
  size?: string;
  json?: boolean;
}

/** Registers `kiln emi`. */
export function registerEmi(program: Command): void {
  program
    .command('emi')
    .description('write a generated program and EMI variants of it, each proven by the interpreter to print the same output')
    .argument('[file]', 'a C file of your own (Orion on any file: not available yet)')
    .option('-s, --seed <n>', 'seed of the base program', '1')
    .option('--mode <mode>', `generation mode: ${MODE_CHOICES.join(', ')}`, 'csmith')
    .option('-k, --variants <k>', 'variants to write (1…K; the base is variant 0)', '10')
    .option('-o, --output <dir>', 'output directory (created if needed)')
    .option('--policy <file>', 'generation policy (YAML or JSON; any subset of fields)')
    .option('--size <preset>', 'program size: small, medium (default) or large')
    .option('--json', 'one JSON line per variant: seed, variant, file, expected, strategies, diffLines')
    .addHelpText(
      'after',
      `
Variant N of seed S is DIR/kiln-S-vN.c (a directory DIR/kiln-S-vN/ for a yarpgen program);
variant 0 is the base. Mutations: Orion (unexecuted statements deleted), Athena (code added
where nothing runs), Hermes FCB/TG/TCB (false blocks, true guards, save-modify-restore at live
points, from the interpreter's value profile), facts (__builtin_unreachable, __builtin_assume,
__builtin_expect) and function attributes. Every variant is run by the interpreter: one that
does not print its base's output, or is undefined, is a Kiln bug: counted, never written.

Examples:
  kiln emi --seed 42 --variants 10 -o emi42
  kiln emi --seed 7 -k 3 -o out --json`,
    )
    .action((file: string | undefined, opts: EmiOptions) => {
      try {
        runEmi(file, opts);
      } catch (e) {
        reportAndExit(e);
      }
    });
}

function runEmi(file: string | undefined, opts: EmiOptions): void {
  if (file !== undefined) throw errUnsupported(`kiln emi on a C file (${file})`, 'use --seed N to mutate a generated program');
  const policy = loadPolicy(opts.policy, opts.size);
  const choice = opts.mode ?? 'csmith';
  if (!isModeChoice(choice)) throw errBadOption('--mode', choice, `one of ${MODE_CHOICES.join(', ')}`);
  const seed = parseSeed('--seed', opts.seed, 1n);
  const k = parseCount('--variants', opts.variants, 10, 0);
  if (!opts.output) throw errBadOption('--output', '(none)', 'an output directory (-o DIR)');
  const out = opts.output;
  try {
    makeDirectory(out);
  } catch (e) {
    throw errFile(out, `cannot create directory: ${(e as Error).message}`);
  }
  const mode = modeFor(seed, choice);
  const indices = Array.from({ length: k + 1 }, (_, i) => i);
  const fam = emiFamily(String(seed), policy, mode, indices);
  if (!('members' in fam)) {
    process.stderr.write(`kiln emi: seed ${seed} discarded by generation: ${fam.reason}\n`);
    process.exitCode = 1;
    return;
  }
  for (const m of fam.members) {
    const name = `kiln-${seed}-v${m.variant}`;
    const target = join(out, m.files.length === 1 ? `${name}.c` : name);
    try {
      if (m.files.length === 1) writeFileSync(target, m.files[0]!.content);
      else {
        makeDirectory(target);
        for (const f of m.files) writeFileSync(join(target, f.name), f.content);
      }
    } catch (e) {
      throw errFile(target, `cannot write: ${(e as Error).message}`);
    }
    if (opts.json) {
      process.stdout.write(
        JSON.stringify({ seed: String(seed), variant: m.variant, file: target, expected: fam.base.expected, strategies: m.strategies, diffLines: m.diffLines, lines: m.lines }) + '\n',
      );
    }
  }
  for (const r of fam.rejected) {
    if (opts.json) process.stdout.write(JSON.stringify({ seed: String(seed), variant: r.variant, internal: r.reason }) + '\n');
    else process.stderr.write(`kiln emi: variant ${r.variant} failed its proof (a Kiln bug, not written): ${r.reason}\n`);
  }
  if (!opts.json) process.stderr.write(`kiln emi: wrote the base and ${fam.members.length - 1} variants of seed ${seed} to ${out}${fam.rejected.length ? ` (${fam.rejected.length} internal)` : ''}\n`);
}
