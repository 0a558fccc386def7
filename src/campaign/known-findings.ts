// Known bugs in a campaign: each finding is matched against the known-bugs files (the output
// folder's known.yaml and the configuration's `known:` file) when its program is recorded, so a
// known finding is stored as known, announced as known and not reduced again; and when a newer
// compiler of its family compiled the same program with the same options cleanly, it is noted
// as fixed there.
import { versionKey } from '../harness/compilers.js';
import type { ProgramDraft } from '../harness/findings.js';
import type { ProgramReport } from '../harness/runner.js';
import { knownFileOf, matchKnown, readKnownFiles, type KnownBug } from '../triage/known.js';

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
