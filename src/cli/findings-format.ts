// How `kiln findings` prints the store's findings: a table, grouped by fingerprint or bucket.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { EmiRecipe } from '../mutate/recipes.js';
import type { FindingGrouping, FindingRow } from '../store/store.js';
import { TRIAGE_FILE } from '../triage/triage.js';
import { VERSIONS_FILE, type VersionLine } from '../triage/versions.js';

/**
 * Findings as text: one block per group (a bug), its size and the smallest reduced program first,
 * then one line per finding. Rows come grouped from {@link KilnStore.listFindings}.
 */
export function formatFindings(
  rows: readonly FindingRow[],
  grouping: FindingGrouping = 'fingerprint',
  unstored: ReadonlyMap<string, number> = new Map(),
): string {
  if (rows.length === 0) return 'no findings yet\n';
  const groups = new Map<string, FindingRow[]>();
  // Known bugs (kiln known) are folded: one line each, after the others.
  const folded = new Map<string, FindingRow[]>();
  for (const r of rows) {
    const key = grouping === 'bucket' ? r.bucket : r.group;
    const into = r.known !== null ? folded : groups;
    into.set(key, [...(into.get(key) ?? []), r]);
  }
  const triaged = rows.filter((r) => r.fingerprint !== null).length;
  const knownCount = rows.length - [...groups.values()].reduce((n, l) => n + l.length, 0);
  const head =
    grouping === 'bucket'
      ? `${rows.length} findings in ${groups.size + folded.size} buckets`
      : `${rows.length} findings in ${groups.size + folded.size} groups ` +
        `(${triaged === rows.length ? 'all' : triaged} ` +
        `triaged${triaged < rows.length ? "; run 'kiln triage' for the rest" : ''})`;
  const out: string[] = [
    knownCount > 0 ? `${head}; ${knownCount} findings in ${folded.size} groups are known bugs, listed last` : head,
  ];
  for (const [key, list] of groups) {
    const notes: string[] = [String(list.length)];
    // Findings past the per-bucket cap are counted by bucket; a group of one bucket shows its count.
    const buckets = new Set(list.map((r) => r.bucket));
    const more = buckets.size === 1 ? (unstored.get([...buckets][0]!) ?? 0) : 0;
    if (more > 0) notes.push(`${more} more not stored`);
    if (grouping === 'fingerprint' && list.every((r) => r.fingerprint === null)) notes.push('not triaged');
    // The group's place on its compiler's version line: live first, as that is what gets filed.
    const labels = new Set(list.map((r) => versionsOf(r.dir)?.label).filter((l) => l !== undefined));
    for (const l of ['live', 'regression', 'fixed', 'untested'] as const) if (labels.has(l)) notes.push(l);
    const reduced = list.filter((r) => r.reducedLines !== null).sort((a, b) => a.reducedLines! - b.reducedLines!)[0];
    if (reduced)
      notes.push(
        `smallest: ${reduced.reducedLines} lines${reduced.reducedFile ? ` in ${shortPath(reduced.reducedFile)}` : ''}`,
      );
    out.push('', `${key}  (${notes.join(', ')})`);
    for (const r of list) {
      const emi = emiOf(r.dir);
      const parts = [
        r.id,
        emi ? `seed ${r.seed} (EMI variant ${emi.variant} of seed ${emi.base})` : `seed ${r.seed}`,
        `${r.compiler}${r.options ? ` ${r.options}` : ''}`,
      ];
      if (grouping === 'fingerprint' && r.group !== r.bucket) parts.push(r.bucket);
      if (grouping === 'bucket' && r.fingerprint !== null && r.fingerprint !== r.bucket) parts.push(r.fingerprint);
      parts.push(r.actual.split('\n')[0]!);
      if (r.hangStatus === 'suspected') parts.push('suspected hang (not checked with the configured limit)');
      else if (r.hangStatus === 'cleared')
        parts.push(
          r.outcome === 'compiler-hang'
            ? 'cleared: finished within the configured limit (a slow compile)'
            : 'cleared: finished within the configured limit',
        );
      if (r.nondeterministic) parts.push('nondeterministic (every behaviour seen is in finding.json)');
      if (r.reducedLines !== null) parts.push(`reduced to ${r.reducedLines} lines`);
      const v = versionsOf(r.dir);
      if (v) parts.push(v.summary);
      parts.push(shortPath(r.dir));
      out.push(`  ${parts.join('  ')}`);
    }
  }
  if (folded.size > 0) out.push('', 'known bugs (kiln known list):');
  for (const [key, list] of folded) {
    const fixed = [...new Set(list.map((r) => r.knownFixed).filter((x) => x !== null))];
    const compilers = [...new Set(list.map((r) => r.compiler))].join(', ');
    out.push(
      `  known: ${list[0]!.known}  ${key}  (${list.length} findings on ${compilers}` +
        `${fixed.length ? `; fixed in ${fixed.join(', ')}: the same program compiled cleanly there` : ''})`,
    );
  }
  const total = [...unstored.values()].reduce((a, b) => a + b, 0);
  if (total > 0) {
    out.push(
      '',
      `${total} more findings in ${unstored.size} buckets were counted but not stored (each bucket keeps ` +
        `its first findings and its smallest program; --max-per-bucket sets how many). Their seeds and ` +
        `outcomes are in the tests table of kiln.db.`,
    );
  }
  return `${out.join('\n')}\n`;
}

/**
 * A finding's version line: the one `kiln triage` wrote into its triage.json, else the one
 * `kiln fuzz --reduce` wrote into versions.json before reducing it.
 */
export function versionsOf(dir: string): VersionLine | undefined {
  for (const [file, pick] of [
    [TRIAGE_FILE, (j: { versions?: VersionLine }) => j.versions],
    [VERSIONS_FILE, (j: VersionLine) => j],
  ] as const) {
    try {
      const v = (pick as (j: unknown) => VersionLine | undefined)(JSON.parse(readFileSync(join(dir, file), 'utf8')));
      if (v && typeof v.label === 'string') return v;
    } catch {
      // no such file: the next one
    }
  }
  return undefined;
}

/** A path relative to the current folder when that is shorter. */
function shortPath(p: string): string {
  const rel = relative(process.cwd(), p);
  return rel.length < p.length && !rel.startsWith('../..') ? rel : p;
}

/**
 * The EMI recipe in a finding's finding.json (findings of `kiln fuzz --emi`): findings whose
 * recipes name one base seed are variants of one program. Undefined for other findings, or when
 * the folder is gone (the store's row is still listed).
 */
export function emiOf(dir: string): EmiRecipe | undefined {
  try {
    const j = JSON.parse(readFileSync(join(dir, 'finding.json'), 'utf8')) as { emi?: EmiRecipe };
    return j.emi && typeof j.emi.base === 'string' ? j.emi : undefined;
  } catch {
    return undefined;
  }
}
