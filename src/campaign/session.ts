import { basename, join } from 'node:path';
import { errFile } from '../diag/errors.js';
import { sanitizingFamily } from '../edge/sanitize.js';
import type { CampaignRunner, CampaignSummary, ProgramReport } from '../harness/runner.js';
import { draftProgram, hangCheckUpdate } from '../harness/findings.js';
import { sweepStaleTempRoots } from '../harness/tempdir.js';
import { FINDINGS_DIR, KilnStore, type RecordResult } from '../store/store.js';
import { BackgroundReducer } from './background-reduce.js';
import { campaignKnown, markKnown } from './known-findings.js';
import { checkCompilers } from './compiler-check.js';
import { recordReduction } from './reduce-finding.js';
import { Progress } from './progress.js';
import { ReportRefresher } from './report-refresher.js';
import { localRunnerFor } from './runners.js';
import { settingsToStore, withCapabilities, type FuzzSettings } from './settings.js';

/**
 * Runs one session of a campaign with resolved settings — on this machine's cores unless another
 * runner (a queue of workers) is given; resolves when it has stopped cleanly.
 */
export async function fuzz(settings: FuzzSettings, given?: CampaignRunner): Promise<CampaignSummary> {
  // Probed before anything is stored: a new campaign's stored policy draws only what its compilers
  // accept (a sanitizer campaign, which builds every program with each, what all of them accept).
  // A given runner (a queue of workers) already holds its settings, lowered the same way.
  const s = given
    ? settings
    : settings.sanitizers
      ? await withCapabilities(settings, 'every', (c) => sanitizingFamily(c.family))
      : await withCapabilities(settings);
  // Bugs already reported (src/triage/known.ts): their findings are stored and listed as known, not
  // reduced. Read before anything is stored, so a broken file stops the campaign at once.
  const knownBugs = campaignKnown(s.out, s.known);
  const runner = given ?? localRunnerFor(s);
  const checkMs = runner.checksCompilersHere ? await checkCompilers(s) : undefined;
  const store = KilnStore.open(s.out, 'write');
  const campaignId = s.resume
    ? s.resume.id
    : store.createCampaign({
        config: settingsToStore(s),
        compilers: s.compilers,
        seedStart: s.seedStart ?? store.nextUnusedSeed(),
        ...(s.maxTests !== undefined ? { maxTests: s.maxTests } : {}),
      });
  try {
    store.claimCampaign(campaignId);
  } catch (e) {
    store.close();
    throw e;
  }
  sweepStaleTempRoots();
  const progress = new Progress(process.stderr, `campaign ${campaignId}:`);
  const seeds = store.seedProgress(campaignId);
  const remaining = s.maxTests === undefined ? undefined : Math.max(0, s.maxTests - seeds.done);
  const knownBuckets = store.knownBuckets();
  say(progress, describeSession(s, campaignId, seeds, checkMs, runner));
  if (s.resume) warnVersionChanges(progress, s);

  const stop = new AbortController();
  let interrupts = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts === 1) {
      progress.println(
        `kiln fuzz: ${sig}: stopping; tests in flight are abandoned and will run again on --resume ` +
          `(${sig === 'SIGINT' ? 'Ctrl-C' : sig} again aborts at once)`,
        process.stderr,
      );
      stop.abort();
    } else {
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  // The campaign's report.html, rewritten every few minutes and when the session ends.
  const report = new ReportRefresher(s.out, campaignId, (m) => progress.println(m, process.stderr));
  report.start();

  const ctx = { campaignId, limits: s.limits, policy: s.policy, ...(s.emi ? { emi: s.emi } : {}) };
  const reducer = s.reduce
    ? new BackgroundReducer(
        (dir, r) => {
          progress.println(
            r.kind === 'bundle'
              ? `reduced ${basename(dir)}: ${r.reduction.original.lines} → ${r.reduction.lines} ` +
                  `lines${r.triage ? `, fingerprint ${r.triage.fingerprint}` : ''} → ${r.bundle.reducedFile}`
              : `reduced ${basename(dir)} as text (layout-dependent): ${r.result.originalBytes} ` +
                  `→ ${r.result.bytes} bytes, ${r.lines} lines → ${r.file}`,
            process.stdout,
          );
          try {
            recordReduction(dir, r.kind === 'bundle' ? r : { lines: r.lines, file: r.file }, store);
          } catch {
            // The bundle is on disk; the store's copy of its size is a convenience.
          }
        },
        (dir, message) => progress.println(`kiln fuzz: could not reduce ${basename(dir)}: ${message}`, process.stderr),
        stop.signal,
      )
    : undefined;
  const capOptions = s.maxPerBucket !== undefined ? { maxPerBucket: s.maxPerBucket } : {};
  /**
   * Records finished programs in one transaction (written and committed first, announced after: what is shown is never
   * lost).
   */
  const record = (reports: readonly ProgramReport[]): void => {
    const drafts = reports.map((r) => markKnown(draftProgram(r, ctx), r, knownBugs));
    let recorded: RecordResult[];
    try {
      recorded = store.recordPrograms(campaignId, drafts, capOptions);
    } catch (e) {
      // A full disk or a folder made read-only under us is the machine's problem, not Kiln's.
      const code = (e as { code?: string }).code;
      const seeds =
        reports.length === 1
          ? `seed ${reports[0]!.seed}`
          : reports.length <= 4
            ? `seeds ${reports.map((r) => r.seed).join(', ')}`
            : `${reports.length} seeds (${reports[0]!.seed} ... ${reports.at(-1)!.seed})`;
      if (code && /^(E[A-Z]+|SQLITE_(FULL|IOERR.*|READONLY.*|CANTOPEN))$/.test(code))
        throw errFile(s.out, `cannot store the results of ${seeds}: ${(e as Error).message}`);
      throw e;
    }
    reports.forEach((r, i) => {
      for (const id of announce(progress, r, drafts[i]!, recorded[i]!, knownBuckets, s))
        reducer?.add(join(s.out, FINDINGS_DIR, id));
    });
  };
  let summary: CampaignSummary | undefined;
  try {
    if (remaining === 0) {
      summary = {
        stoppedBy: 'tests',
        programs: 0,
        tests: 0,
        reruns: 0,
        confirmations: 0,
        unconfirmed: 0,
        elapsedMs: 0,
      };
    } else {
      summary = await runner.run(
        {
          // Claimed from the store block by block: campaigns sharing --out never test one seed twice.
          seeds: store.campaignSeeds(campaignId, seeds.gaps, runner.seedBlock),
          ...(remaining !== undefined ? { maxPrograms: remaining } : {}),
          ...(s.timeMs !== undefined ? { timeMs: s.timeMs } : {}),
          signal: stop.signal,
          say: (line) => say(progress, line),
          campaignId,
          recorded: (seed) => store.hasSeed(campaignId, seed),
        },
        {
          onTest: () => progress.test(),
          onProgram: (r) => record([r]),
          onPrograms: (rs) => record(rs),
          onConfirm: (c) => {
            const u = hangCheckUpdate(campaignId, c, s.limits);
            store.setHangStatus(u.id, c.verdict, u.facts);
            const verdict =
              c.verdict === 'confirmed'
                ? 'confirmed with the configured limit'
                : `cleared: it finished within the configured limit (${c.result.judgement.outcome})`;
            progress.println(
              `finding ${u.id}: suspected ${c.result.config.compiler.name} hang ${verdict}`,
              process.stdout,
            );
          },
        },
      );
    }
  } finally {
    if (reducer) {
      // A campaign that ran its course waits for its reductions; one stopped by the clock or by
      // Ctrl-C cuts the running one short (its best program so far is written) and lists the rest.
      const natural = summary?.stoppedBy === 'tests' || summary?.stoppedBy === 'seeds';
      if (natural && reducer.busy)
        progress.println(`kiln fuzz: finishing ${reducer.pending + 1} reductions (Ctrl-C stops them)`, process.stderr);
      const left = await reducer.close(!natural || stop.signal.aborted);
      if (left.length)
        progress.println(
          `kiln fuzz: ${left.length} new buckets not reduced yet: kiln ` +
            `reduce ${left.map((d) => basename(d)).join(' ')} (in ${join(s.out, FINDINGS_DIR)})`,
          process.stderr,
        );
    }
    progress.stop();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    store.endCampaign(campaignId, summary?.stoppedBy ?? 'error');
    const page = report.finish();
    if (page) process.stderr.write(`kiln fuzz: report: ${page}\n`);
  }
  const row = store.campaign(campaignId)!;
  const cleared = store.clearedHangs(campaignId);
  store.close();
  if (!summary) throw new Error('campaign ended without a summary');
  if (summary.unconfirmed > 0) {
    process.stderr.write(
      `kiln fuzz: ${summary.unconfirmed} suspected hangs were not checked with the configured limit before ` +
        `the campaign ended; they are listed as suspected (their repro.sh checks with the full limit)\n`,
    );
  }
  const knownNote = progress.counts.known
    ? `, ${progress.counts.known} of this session's findings are known bugs (not reduced)`
    : '';
  process.stdout.write(
    `kiln fuzz: campaign ${campaignId} stopped (${summary.stoppedBy}): this session ${summary.programs} ` +
      `programs, ${summary.tests} tests in ${(summary.elapsedMs / 1000).toFixed(1)} s; ` +
      `campaign total ${row.programs} programs, ${row.findings} findings` +
      // A suspected hang that finished within the configured limit stays on disk (a slow compile
      // may be worth a report of its own) but is no hang: the count says how many of those there are.
      `${cleared ? ` (${cleared} of them suspected hangs cleared as slow compiles)` : ''}` +
      `${knownNote}` +
      `, ${row.internal} internal` +
      `${row.counters.skipped ? `, ${row.counters.skipped} tests skipped (compiler lacks the program's types)` : ''}` +
      `; results in ${s.out}\n`,
  );
  return summary;
}

function describeSession(
  s: FuzzSettings,
  id: number,
  seeds: { done: number; gaps: bigint[]; next: bigint },
  checkMs: number | undefined,
  runner: CampaignRunner,
): string {
  const compilers = s.compilers.map((c) => `  ${c.name.padEnd(12)} ${c.version}`).join('\n');
  const head = s.resume
    ? `kiln fuzz: resuming campaign ${id}: ${seeds.done} programs done, ${seeds.gaps.length} claimed seeds ` +
      `not finished (run first), then seeds from ${seeds.next}`
    : `kiln fuzz: campaign ${id}, seeds from ${seeds.next}`;
  const check =
    checkMs !== undefined
      ? `each compiled and ran a check program (${(checkMs / 1000).toFixed(1)} s)`
      : 'each checked by every worker';
  // Configurations whose binaries this machine cannot run (an ISA it lacks) test the compiler only.
  const compileOnly = s.configurations
    .filter((c) => c.compileOnly !== undefined)
    .map(
      (c) =>
        `\n  compile-only: ${c.compiler.name} ${c.optionsText} (${c.compileOnly}): crashes, hangs and rejections only`,
    )
    .join('');
  return (
    `${head}; ${s.compilers.length} compilers × ${s.optionSets.length} option sets ` +
    `= ${s.configurations.length} configurations, ${check}; ${runner.description}; results ` +
    `in ${s.out}\n${compilers}\n  option sets: ${s.optionSets.join('; ')}${compileOnly}`
  );
}

function warnVersionChanges(progress: Progress, s: FuzzSettings): void {
  const before = new Map((s.resume!.compilers as { name: string; version: string }[]).map((c) => [c.name, c.version]));
  for (const c of s.compilers) {
    const v = before.get(c.name);
    if (v !== undefined && v !== c.version)
      progress.println(
        `kiln fuzz: warning: ${c.name} changed version since the campaign started: was '${v}', now '${c.version}'`,
        process.stderr,
      );
  }
}

/** Prints a finished program's findings; returns the ids of the findings that opened a new bucket. */
function announce(
  progress: Progress,
  r: ProgramReport,
  draft: ReturnType<typeof draftProgram>,
  recorded: RecordResult,
  known: Set<string>,
  s: FuzzSettings,
): string[] {
  const out = s.out;
  const fresh: string[] = [];
  const c = progress.counts;
  c.programs++;
  if (r.status !== 'tested') c.discarded++;
  if (r.status === 'error')
    progress.println(
      `kiln fuzz: KILN BUG: the generator failed on seed ${r.seed}: ${(r.reason ?? '').split('\n')[0]} ` +
        `(please report it)`,
      process.stderr,
    );
  c.flaky += r.results.filter((x) => x.flaky).length;
  for (const x of r.results) progress.outcome(x.outcome);
  const outcomes = new Map(draft.findings.map((f) => [f.id, f]));
  for (const k of recorded.kept) {
    const f = outcomes.get(k.id)!;
    c.findings++;
    const isNew = !known.has(f.bucket);
    if (isNew) {
      known.add(f.bucket);
      c.newBuckets++;
      // A known bug is not reduced again.
      if (f.known === undefined) fresh.push(f.id);
    }
    if (f.known !== undefined) c.known++;
    const note =
      f.known !== undefined
        ? ` [known: ${f.known}${f.knownFixed ? `; ${f.knownFixed} compiles it: fixed there` : ''}]`
        : isNew
          ? ' [new bucket]'
          : k.as === 'smallest'
            ? ` [smallest of its bucket${k.replaced ? `, replaces ${k.replaced}` : ''}]`
            : '';
    const notes =
      `${f.hangStatus === 'suspected' ? ' [suspected: checking with the configured limit]' : ''}` +
      `${f.nondeterministic ? ' [nondeterministic]' : ''}`;
    progress.println(
      `finding ${f.id}: ${f.outcome} with ${f.compiler}${f.options ? ` ${f.options}` : ''} ` +
        `(seed ${r.seed})${note}${notes} → ${out}/findings/${f.id}`,
      process.stdout,
    );
  }
  for (const d of recorded.dropped) {
    // Said once per bucket and session: the rest are counted (kiln findings shows how many).
    if (known.has(`${d.bucket}\0capped`)) continue;
    known.add(`${d.bucket}\0capped`);
    progress.println(
      `kiln fuzz: bucket ${d.bucket} holds its ${s.maxPerBucket} findings: further ones are counted, not ` +
        `stored, unless smaller (seed ${r.seed} and its outcome stay in the database; --max-per-bucket changes ` +
        `the cap)`,
      process.stderr,
    );
  }
  if (draft.internal) {
    c.internal++;
    progress.println(
      `kiln fuzz: KILN BUG (internal): seed ${r.seed}: every configuration prints ` +
        `'${draft.internal.actual}' but the interpreter expects '${draft.internal.expected}'; kept ` +
        `in ${out}/internal/${draft.internal.id} — please report it (not counted as a compiler bug)`,
      process.stderr,
    );
  }
  return fresh;
}

function say(progress: Progress, text: string): void {
  progress.println(text, process.stderr);
}
