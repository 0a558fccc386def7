// `kiln known`: the bugs already reported (src/triage/known.ts). `add` records a finding's crash
// signature or wrong-code fingerprint with a note; `list` prints the file; `check` runs each
// entry's finding on every installed version of its compiler and records where it stopped showing.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { knownCounts, knownKeyOf, markFindingsKnown, outputFolderOf } from '../campaign/known-findings.js';
import { errBadOption, errFile } from '../diag/errors.js';
import { detectCompilers, resolveCompiler } from '../harness/compilers.js';
import { TempRoot } from '../harness/tempdir.js';
import { readFinding } from '../triage/finding.js';
import { addKnown, knownFileOf, readKnown, writeKnown, type KnownBug } from '../triage/known.js';
import { versionLine } from '../triage/versions.js';
import { reportAndExit } from './util.js';

interface KnownFlags {
  note?: string;
  file?: string;
  out?: string;
}

/** Registers `kiln known` and its subcommands. */
export function registerKnown(program: Command): void {
  const known = program
    .command('known')
    .description(
      'bugs already reported: findings whose crash signature or wrong-code fingerprint is listed are counted and ' +
        "listed as known, not reduced again (the output folder's known.yaml, or a file named by known: in the " +
        'configuration)',
    );
  known
    .command('add')
    .argument('<finding>', 'a finding folder (kiln-out/findings/<id>)')
    .requiredOption('--note <text>', 'where the bug is reported (a tracker URL) or why it is set aside')
    .option('--file <known.yaml>', "the file to add to (default: the known.yaml of the finding's output folder)")
    .description(
      "add a finding's bug (its crash signature, or its triage fingerprint for wrong code) to the known bugs",
    )
    .action((dir: string, flags: KnownFlags) => run(() => knownAdd(dir, flags)));
  known
    .command('list')
    .option('--out <dir>', 'output folder whose known.yaml to list (default ./kiln-out)')
    .option('--file <known.yaml>', 'the file to list')
    .description('list the known bugs, with the findings of the output folder that match each')
    .action((flags: KnownFlags) => run(() => knownList(flags)));
  known
    .command('check')
    .option('--out <dir>', 'output folder whose known.yaml to check (default ./kiln-out)')
    .option('--file <known.yaml>', 'the file to check')
    .description(
      "run each known bug's finding (its reduced program when there is one) on every installed version of its " +
        'compiler, and record the first newer version on which it no longer shows (fixedIn)',
    )
    .action((flags: KnownFlags) => run(() => knownCheck(flags)));
}

async function run(f: () => unknown): Promise<void> {
  try {
    await f();
  } catch (e) {
    reportAndExit(e);
  }
}

function knownAdd(dir: string, flags: KnownFlags): void {
  const f = readFinding(dir);
  const note = flags.note!.trim();
  if (note === '' || note.includes('\n')) throw errBadOption('--note', flags.note!, 'one line of text (a tracker URL)');
  const out = outputFolderOf(dir);
  const file = flags.file ?? (out ? knownFileOf(out) : undefined);
  if (!file)
    throw errFile(
      dir,
      'the finding is not in an output folder of kiln fuzz',
      'name the file to add to: --file known.yaml',
    );
  const { key, triaged } = knownKeyOf(dir, f.bucket);
  const { seen, marked } = markFindingsKnown(out, key, note, `${f.compilerName} ${f.compilerVersion}`.trim());
  const entry: KnownBug = {
    key,
    note,
    added: new Date().toISOString().slice(0, 10),
    finding: resolve(dir),
    seen,
  };
  const r = addKnown(file, entry);
  process.stdout.write(
    `${r.added ? 'added' : 'updated'} ${key}\n  note: ${note}\n  in ${file}` +
      `${out ? `; ${marked} findings of ${out} marked known` : ''}\n`,
  );
  if (f.outcome === 'wrong-code' && !triaged)
    process.stderr.write(
      `kiln known: ${f.id} is not triaged: its key is the campaign bucket (compiler and options); ` +
        `'kiln triage ${dir}' first gives the pass to blame, a key that also matches other option sets\n`,
    );
}

function knownFile(flags: KnownFlags): string {
  return flags.file ?? knownFileOf(flags.out ?? 'kiln-out');
}

function knownList(flags: KnownFlags): void {
  const file = knownFile(flags);
  const list = readKnown(file);
  if (list.length === 0) {
    process.stdout.write(`no known bugs in ${file}\n`);
    return;
  }
  const out = flags.file === undefined ? (flags.out ?? 'kiln-out') : flags.out;
  const counts = out ? knownCounts(out, list) : new Map<string, number>();
  const lines = [`${list.length} known bugs in ${file}`];
  for (const e of list) {
    lines.push('', `known: ${e.note}`, `  ${e.key}`);
    if (e.seen?.length) lines.push(`  seen on ${e.seen.join(', ')}`);
    if (e.fixedIn) lines.push(`  fixed in ${e.fixedIn}`);
    if (counts.has(e.key)) lines.push(`  ${counts.get(e.key)} findings in ${out}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function knownCheck(flags: KnownFlags): Promise<void> {
  const file = knownFile(flags);
  const list = readKnown(file);
  const installed = await detectCompilers();
  const temp = TempRoot.create();
  let changed = false;
  try {
    for (const [i, e] of list.entries()) {
      if (!e.finding || !existsSync(e.finding)) {
        process.stdout.write(`${e.key}: no finding folder to run (${e.finding ?? 'none recorded'})\n`);
        continue;
      }
      const f = readFinding(e.finding);
      const line = await versionLine(f, await resolveCompiler(f.compilerPath), installed, { temp });
      process.stdout.write(`${e.key}\n  ${line.summary}\n`);
      if (line.label === 'fixed' && line.firstFixed && e.fixedIn !== line.firstFixed) {
        list[i] = { ...e, fixedIn: line.firstFixed };
        changed = true;
      }
    }
  } finally {
    temp.dispose();
  }
  if (changed) writeKnown(file, list);
}
