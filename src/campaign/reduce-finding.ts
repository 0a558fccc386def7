import { copyFileSync, existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { errFile } from '../diag/errors.js';
import { crashReproducers } from '../reduce/crash-repro.js';
import { reduceCrashText } from '../reduce/crash-text.js';
import { reduceFinding, type FindingReduceOptions, type FindingReduction } from '../reduce/finding.js';
import { writeBundle, writeReducedFinding, type Bundle } from '../report/bundle.js';
import { KilnStore } from '../store/store.js';
import { minimiseFinding } from '../triage/minimise-command.js';
import { triageFinding, type TriageResult } from '../triage/triage.js';

/** A reduced finding and its bundle. */
export interface ReducedFinding {
  readonly reduction: FindingReduction;
  readonly bundle: Bundle;
  /** Triage of the reduced program (undefined when skipped or when it failed). */
  readonly triage?: TriageResult;
}

/** Options of {@link reduceAndBundle}. */
export interface ReduceAndBundleOptions extends FindingReduceOptions {
  /** Copy `reduced.c` here too. */
  readonly output?: string;
  /** Fingerprint the reduced program (default true): a small program makes the pass search cheap. */
  readonly triage?: boolean;
  /**
   * For a compiler crash (default true): reduce the IR reducer's program further as text, warning-free, and make the
   * LLVM or GCC reproducer (src/reduce/crash-text.ts, crash-repro.ts).
   */
  readonly crashExtras?: boolean;
}

/**
 * Reduces a finding folder and writes its bug bundle into it (`reduced.c`, `reduced/`), then copies
 * `reduced.c` to `output` when one is given. Used by `kiln reduce FINDING_DIR` and in the
 * background of `kiln fuzz --reduce`.
 */
export async function reduceAndBundle(dir: string, opts: ReduceAndBundleOptions): Promise<ReducedFinding> {
  // The smallest command line first: the reduction, its bundle and triage all use it.
  await minimiseFinding(dir, {
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  });
  let reduction = await reduceFinding(dir, opts);
  const crashing = reduction.finding.outcome === 'compiler-crash' && opts.crashExtras !== false;
  const text = crashing
    ? await reduceCrashText(reduction, {
        ...(opts.jobs !== undefined ? { jobs: opts.jobs } : {}),
        ...(opts.maxTimeMs !== undefined ? { maxTimeMs: opts.maxTimeMs } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
        ...(opts.validity ? { validity: opts.validity } : {}),
      })
    : undefined;
  if (text) reduction = text.reduction;
  const crash =
    crashing && reduction.files.length === 1 && !opts.signal?.aborted
      ? await crashReproducers({
          compiler: reduction.config.compiler,
          options: reduction.config.options,
          source: reduction.source,
          stderr: reduction.failing.compile.stderr,
          ...(opts.signal ? { signal: opts.signal } : {}),
          ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
        })
      : undefined;
  let triage: TriageResult | undefined;
  if (opts.triage !== false && !opts.signal?.aborted) {
    const folder = writeReducedFinding(reduction);
    try {
      triage = await triageFinding(folder, {
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      });
    } catch (e) {
      opts.onProgress?.(`triage of the reduced program failed: ${(e as Error).message}`);
    }
  }
  const bundle = await writeBundle(reduction, {
    ...(triage
      ? {
          fingerprint: triage.fingerprint,
          fingerprintDetail: triage.detail,
          ...(triage.versions ? { versions: triage.versions } : {}),
          ...(triage.culpritOptions ? { culpritOptions: triage.culpritOptions } : {}),
        }
      : {}),
    ...(crash ? { crash } : {}),
    ...(text?.text ? { text: { seconds: text.seconds, tests: text.text.tests, warnings: text.warnings } } : {}),
  });
  if (opts.output !== undefined) {
    try {
      copyFileSync(bundle.reducedFile, opts.output);
    } catch (e) {
      throw errFile(opts.output, `cannot write: ${(e as Error).message}`);
    }
  }
  return { reduction, bundle, ...(triage ? { triage } : {}) };
}

/**
 * Records a reduction (and its fingerprint) in the store of the output folder holding the finding,
 * when it is in one. Best effort: the bundle on disk is the result; the store's copy is an index.
 */
export function recordReduction(
  dir: string,
  r: ReducedFinding | { readonly lines: number; readonly file: string },
  store?: KilnStore,
): void {
  const id = basename(resolve(dir));
  const record = (s: KilnStore): void => {
    if ('reduction' in r) {
      s.setReduced(id, { lines: r.reduction.lines, file: r.bundle.reducedFile });
      if (r.triage) s.setFingerprint(id, r.triage.fingerprint);
      // The hang check `kiln reduce` made with the configured limit settles a suspected hang.
      const check = r.reduction.hangCheck;
      if (check && r.reduction.finding.hangStatus !== check.verdict) {
        s.setHangStatus(id, check.verdict, {
          hangCheck: {
            verdict: check.verdict,
            limitMs: check.limitMs,
            ...(check.durationMs !== undefined ? { durationMs: check.durationMs } : {}),
            note:
              check.verdict === 'confirmed'
                ? `kiln reduce: it hung again under the configured limit of ${check.limitMs / 1000} s`
                : `kiln reduce: it finished within the configured limit of ${check.limitMs / 1000} s: slow, not a hang`,
          },
        });
      }
    } else {
      s.setReduced(id, { lines: r.lines, file: r.file });
    }
  };
  if (store) return record(store);
  const out = outDirOf(dir);
  if (!out) return;
  const s = KilnStore.open(out, 'write');
  try {
    record(s);
  } finally {
    s.close();
  }
}

/** The output folder of `kiln fuzz` holding a finding folder (`OUT/findings/ID`), if it is one. */
function outDirOf(findingDir: string): string | undefined {
  const abs = resolve(findingDir);
  const parent = dirname(abs);
  if (basename(parent) !== 'findings') return undefined;
  const out = dirname(parent);
  return existsSync(join(out, 'kiln.db')) ? out : undefined;
}
