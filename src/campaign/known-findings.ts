// Known bugs in a campaign: each finding is matched against the known-bugs files (the output
// folder's known.yaml and the configuration's `known:` file) when its program is recorded, so a
// known finding is stored as known, announced as known and not reduced again; and when a newer
// compiler of its family compiled the same program with the same options cleanly, it is noted
// as fixed there.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { versionKey } from '../harness/compilers.js';
import type { ProgramDraft } from '../harness/findings.js';
import type { ProgramReport } from '../harness/runner.js';
import { DB_FILE } from '../store/db.js';
import { KilnStore } from '../store/store.js';
import { knownFileOf, matchKnown, readKnownFiles, type KnownBug } from '../triage/known.js';
import { TRIAGE_FILE } from '../triage/triage.js';

/** The known bugs a campaign in `out` matches against (read once, at the start of a session). */
export function campaignKnown(out: string, configured?: string): KnownBug[] {
  return readKnownFiles([knownFileOf(out), ...(configured ? [configured] : [])]);
}

/** The draft with its known findings marked (`known`: the note; `knownFixed`: a newer compiler that passed). */
export function markKnown(draft: ProgramDraft, report: ProgramReport, known: readonly KnownBug[]): ProgramDraft {
  if (known.length === 0 || draft.findings.length === 0) return draft;
  const findings = draft.findings.map((f) => {
    const k = matchKnown(known, { bucket: f.bucket });
    if (!k) return f;
    const fixed = fixedOn(report, f.compiler, f.options);
    return { ...f, known: k.note, ...(fixed ? { knownFixed: fixed } : {}) };
  });
  return { ...draft, findings };
}

/**
 * The oldest compiler of the same family and target, newer than `compiler`, that ran the same
 * option set on this program and printed the expected output; undefined when none did.
 */
function fixedOn(report: ProgramReport, compiler: string, options: string): string | undefined {
  const own = report.results.find((r) => r.config.compiler.name === compiler)?.config.compiler;
  if (!own) return undefined;
  const newer = (a: readonly number[], b: readonly number[]): number => {
    for (let i = 0; i < Math.max(a.length, b.length); i++)
      if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  const base = versionKey(own);
  const passed = report.results
    .filter(
      (r) =>
        r.outcome === 'ok' &&
        r.config.optionsText === options &&
        r.config.compiler.family === own.family &&
        (r.config.compiler.target ?? '') === (own.target ?? '') &&
        newer(versionKey(r.config.compiler), base) > 0,
    )
    .sort((a, b) => newer(versionKey(a.config.compiler), versionKey(b.config.compiler)));
  return passed[0]?.config.compiler.name;
}

/** The output folder holding a finding folder (`OUT/findings/ID`), when it has a database. */
export function outputFolderOf(findingDir: string): string | undefined {
  const parent = dirname(resolve(findingDir));
  if (basename(parent) !== 'findings') return undefined;
  const out = dirname(parent);
  return existsSync(join(out, DB_FILE)) ? out : undefined;
}

/** The key a finding is known by: its triage fingerprint when triage named a culprit pass, else its bucket. */
export function knownKeyOf(dir: string, bucket: string): { key: string; triaged: boolean } {
  try {
    const t = JSON.parse(readFileSync(join(dir, TRIAGE_FILE), 'utf8')) as { fingerprint?: unknown; method?: unknown };
    if (typeof t.fingerprint === 'string' && (t.method === 'opt-bisect' || t.method === 'gcc-disable'))
      return { key: t.fingerprint, triaged: true };
  } catch {
    // not triaged: the bucket
  }
  return { key: bucket, triaged: false };
}

/**
 * Marks the findings of `out` whose bucket or fingerprint is `key` as the known bug `note`, and
 * returns every compiler they were seen on (with `compiler`, the added finding's), sorted.
 */
export function markFindingsKnown(
  out: string | undefined,
  key: string,
  note: string,
  compiler: string,
): { seen: string[]; marked: number } {
  const seen = new Set([compiler]);
  let marked = 0;
  if (out) {
    const store = KilnStore.open(out, 'write');
    try {
      for (const r of store.listFindings('bucket'))
        if (r.bucket === key || r.fingerprint === key) seen.add(`${r.compiler} ${r.compilerVersion}`.trim());
      marked = store.setKnown(key, note);
    } finally {
      store.close();
    }
  }
  return { seen: [...seen].sort(), marked };
}

/** How many findings of `out` match each known bug of `list`, by key (none when `out` has no database). */
export function knownCounts(out: string, list: readonly KnownBug[]): Map<string, number> {
  const counts = new Map<string, number>();
  if (!existsSync(join(out, DB_FILE))) return counts;
  const store = KilnStore.open(out, 'read');
  try {
    for (const r of store.listFindings('bucket'))
      for (const k of [r.bucket, r.fingerprint])
        if (k && list.some((e) => e.key === k)) counts.set(k, (counts.get(k) ?? 0) + 1);
  } finally {
    store.close();
  }
  return counts;
}
