import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { errBadOption, errFile } from '../diag/errors.js';
import { isModeChoice, MODE_CHOICES, modeFor } from '../gen/mode.js';
import { emiFamily } from '../mutate/index.js';
import { makeDirectory } from '../store/files.js';
import { FILE_ONLY, outputDirectory, refuseOptions, runEmiFile, type EmiOptions } from './emi-file.js';
import { loadPolicy, parseCount, parseSeed, reportAndExit } from './util.js';

/** Registers `kiln emi`. */
export function registerEmi(program: Command): void {
  program
    .command('emi')
    .description(
      'write EMI variants of a generated program (proven by the interpreter) or of a C file of your own ' +
        '(Orion, checked by running them)',
    )
    .argument('[file]', 'a C file of your own: Orion variants, checked with the reference compiler')
    .option('-s, --seed <n>', 'seed of the base program (with FILE: of the variants)', '1')
    .option('--mode <mode>', `not with FILE: generation mode, ${MODE_CHOICES.join(', ')} (default csmith)`)
    .option('-k, --variants <k>', 'variants to write (1…K; the base is variant 0)', '10')
    .option('-o, --output <dir>', 'output directory (created if needed)')
    .option('--policy <file>', 'not with FILE: generation policy (YAML or JSON; any subset of fields)')
    .option('--size <preset>', 'not with FILE: program size, small, medium (default) or large')
    .option('--cc <compiler>', 'FILE only: the reference compiler, a gcc driver (default gcc)')
    .option('--gcov <tool>', 'FILE only: the gcov of that gcc (default: gcov-N for gcc-N)')
    .option('--cflags <flags>', 'FILE only: extra flags for every build (e.g. "-I/usr/include/csmith")')
    .option(
      '--run-timeout <duration>',
      'FILE only: limit of each run (as kiln check); a program that runs longer "does not terminate" (default 10s)',
    )
    .option('--json', 'one JSON line per variant (see below)')
    .addHelpText(
      'after',
      `
Variant N of seed S is DIR/kiln-S-vN.c (a directory DIR/kiln-S-vN/ for a yarpgen program);
variant 0 is the base. Mutations: Orion (unexecuted statements deleted), Athena (code added
where nothing runs), Hermes FCB/TG/TCB (false blocks, true guards, save-modify-restore at live
points, from the interpreter's value profile), facts (__builtin_unreachable, __builtin_assume,
__builtin_expect) and function attributes. Every variant is run by the interpreter: one that
does not print its base's output, or is undefined, is a Kiln bug: counted, never written.

JSON lines: seed, variant, file, expected, strategies, diffLines, lines, contracts.

With FILE (a deterministic program that takes no input), Orion: FILE is built with the reference
compiler at -O0 --coverage and run twice; gcov finds the statements that never ran, and variant I
deletes each with a probability drawn for that variant. Every variant is built at -O0 and run: one
that does not compile or prints differently is dropped and counted. Variant I is DIR/NAME-vI.c
(variant 0 is a copy of FILE). JSON lines: file, variant, expected, deleted, diffLines; a dropped
variant as variant, dropped (the reason). A file that cannot be parsed, does not compile, does not
terminate, prints differently on two runs or exits abnormally is refused (exit 2), nothing written.

Examples:
  kiln emi --seed 42 --variants 10 -o emi42
  kiln emi --seed 7 -k 3 -o out --json
  kiln emi test.c -k 20 -o test-emi --json
  kiln emi prog.c -k 10 -o out --cc gcc-11 --cflags "-I/usr/include/csmith" --run-timeout 5s`,
    )
    .action(async (file: string | undefined, opts: EmiOptions) => {
      try {
        if (file !== undefined) await runEmiFile(file, opts);
        else runEmi(opts);
      } catch (e) {
        reportAndExit(e);
      }
    });
}

function runEmi(opts: EmiOptions): void {
  refuseOptions(opts, FILE_ONLY, 'generated programs (it is for a C file)');
  const policy = loadPolicy(opts.policy, opts.size);
  const choice = opts.mode ?? 'csmith';
  if (!isModeChoice(choice)) throw errBadOption('--mode', choice, `one of ${MODE_CHOICES.join(', ')}`);
  const seed = parseSeed('--seed', opts.seed, 1n);
  const k = parseCount('--variants', opts.variants, 10, 0);
  const out = outputDirectory(opts);
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
        `${JSON.stringify({
          seed: String(seed),
          variant: m.variant,
          file: target,
          expected: fam.base.expected,
          strategies: m.strategies,
          diffLines: m.diffLines,
          lines: m.lines,
          contracts: m.contracts,
        })}\n`,
      );
    }
  }
  for (const r of fam.rejected) {
    if (opts.json)
      process.stdout.write(`${JSON.stringify({ seed: String(seed), variant: r.variant, internal: r.reason })}\n`);
    else
      process.stderr.write(`kiln emi: variant ${r.variant} failed its proof (a Kiln bug, not written): ${r.reason}\n`);
  }
  if (!opts.json)
    process.stderr.write(
      `kiln emi: wrote the base and ${fam.members.length - 1} variants of seed ${seed} ` +
        `to ${out}${fam.rejected.length ? ` (${fam.rejected.length} internal)` : ''}\n`,
    );
}
