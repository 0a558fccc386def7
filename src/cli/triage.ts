import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { errFile, isKilnError, KilnError } from '../diag/errors.js';
import { detectCompilers } from '../harness/compilers.js';
import { TempRoot } from '../harness/tempdir.js';
import { DB_FILE } from '../store/db.js';
import { FINDINGS_DIR, KilnStore } from '../store/store.js';
import { isFindingDir, readFinding } from '../triage/finding.js';
import { TriageAborted } from '../triage/predicate.js';
import { triageFinding, type TriageResult } from '../triage/triage.js';
import { reportAndExit } from './util.js';

interface TriageFlags {
  versions?: boolean;
  all?: boolean;
  json?: boolean;
  quiet?: boolean;
}

/** Registers `kiln triage`. */
export function registerTriage(program: Command): void {
  program
    .command('triage')
    .argument('<path>', 'a finding folder (kiln-out/findings/<id>) or an output folder (kiln-out)')
    .description(
      'fingerprint findings so that findings of one bug group together: wrong code gets the pass to blame ' +
        '(clang: opt-bisect; gcc: the -fno- flag or -fdisable- pass that hides it), crashes and hangs their ' +
        'normalised bucket. Then places each finding on its version line: its program (the reduced one when ' +
        'there is one) on every installed version of its compiler (gcc-11 … gcc-snapshot, clang-13 … clang-22, ' +
        'with the sid root of `npm run setup -- --profile latest`), labelled live, regression, fixed or ' +
        'untested. Writes triage.json into each finding folder and records the fingerprint in the store.',
    )
    .option('--all', 'with an output folder: triage findings that already have a fingerprint too')
    .option('--no-versions', 'skip the version line (live, regression, fixed or untested)')
    .option('--json', 'print the results as one JSON array instead of one line per finding')
    .option('-q, --quiet', 'no progress on stderr')
    .action(async (path: string, flags: TriageFlags) => {
      try {
        process.exitCode = await runTriage(path, flags);
      } catch (e) {
        reportAndExit(e);
      }
    });
}

/** One finding to triage: its folder, and the store that lists it (if any). */
interface Job {
  readonly id: string;
  readonly dir: string;
}

async function runTriage(path: string, flags: TriageFlags): Promise<number> {
  const target = resolve(path);
  if (!existsSync(target)) throw errFile(path, 'no such file or folder');
  if (!statSync(target).isDirectory()) throw notTriageable(path, 'not a folder');
  const note = (line: string): void => {
    if (!flags.quiet) process.stderr.write(`${line}\n`);
  };

  // A finding folder: triage it; record the result when it sits in a campaign's output folder.
  // An output folder: every finding of its store not triaged yet (all with --all).
  let store: KilnStore | undefined;
  let jobs: Job[];
  if (isFindingDir(target)) {
    const f = readFinding(target);
    const outDir = dirname(dirname(target));
    if (basename(dirname(target)) === FINDINGS_DIR && existsSync(resolve(outDir, DB_FILE))) {
      store = KilnStore.open(outDir, 'write');
      if (!store.finding(f.id)) {
        store.close();
        store = undefined;
      }
    }
    jobs = [{ id: f.id, dir: target }];
  } else if (existsSync(resolve(target, DB_FILE))) {
    store = KilnStore.open(target, 'write');
    jobs = (flags.all ? store.listFindings() : store.untriagedFindings()).map((r) => ({ id: r.id, dir: r.dir }));
    note(`kiln triage: ${jobs.length} finding${jobs.length === 1 ? '' : 's'} to triage in ${path}`);
  } else {
    throw notTriageable(path, `neither a finding folder (no finding.json) nor an output folder (no ${DB_FILE})`);
  }

  const stop = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    note('kiln triage: stopping; findings not finished keep no fingerprint');
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const installed = flags.versions === false ? [] : await detectCompilers();
  const temp = TempRoot.create();
  const results: TriageResult[] = [];
  let failed = 0;
  try {
    for (const [i, job] of jobs.entries()) {
      if (stop.signal.aborted) break;
      const counter = jobs.length > 1 ? `[${i + 1}/${jobs.length}] ` : '';
      note(`${counter}${job.id}: triaging`);
      let r: TriageResult;
      try {
        r = await triageFinding(job.dir, {
          temp,
          signal: stop.signal,
          versions: flags.versions !== false,
          installed,
          onProgress: (line) => note(`${counter}${line}`),
        });
      } catch (e) {
        if (e instanceof TriageAborted) break;
        // One unusable finding (its compiler uninstalled, its folder damaged) does not stop the others.
        if (!isKilnError(e) || jobs.length === 1) throw e;
        failed++;
        process.stderr.write(`kiln: ${job.id}: error[${e.code}]: ${e.message}\n`);
        continue;
      }
      store?.setFingerprint(job.id, r.fingerprint);
      results.push(r);
      note(
        `${counter}${job.id}: ${r.fingerprint}  (${r.method}, ${r.steps} ` +
          `compile${r.steps === 1 ? '' : 's'}, ${r.seconds} s): ${r.detail}`,
      );
      const tried = r.versions?.tried.map((t) => `${t.compiler} ${t.result}`).join(', ');
      if (r.versions) note(`${counter}${job.id}: ${r.versions.summary} (${tried})`);
      if (!flags.json)
        process.stdout.write(`${r.findingId}  ${r.fingerprint}${r.versions ? `  ${r.versions.label}` : ''}\n`);
    }
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    temp.dispose();
    store?.close();
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  if (stop.signal.aborted) return 130;
  return failed > 0 ? 1 : 0;
}

function notTriageable(path: string, detail: string): KilnError {
  return new KilnError(
    'KILN_NOT_A_FINDING',
    `${path}: ${detail}`,
    'give a finding folder (kiln-out/findings/<id>) or the output folder of a campaign (kiln-out)',
  );
}
