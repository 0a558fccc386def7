import { isAbsolute, join } from 'node:path';

// Typed forms of the store's raw rows, and the rows the store hands out.

/** A campaign as stored. */
export interface CampaignRow {
  readonly id: number;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly endReason: string | null;
  /** Parsed JSON of the campaign's settings. */
  readonly config: unknown;
  /** Parsed JSON of the compilers with their versions. */
  readonly compilers: unknown;
  readonly seedStart: bigint;
  readonly maxTests: number | null;
  readonly programs: number;
  readonly discarded: number;
  readonly tests: number;
  readonly findings: number;
  readonly internal: number;
  readonly counters: Record<string, number>;
  readonly runningPid: number | null;
}

/** A stored finding, as listed by `kiln findings`. */
export interface FindingRow {
  readonly id: string;
  readonly campaignId: number;
  readonly seed: string;
  readonly outcome: string;
  readonly bucket: string;
  readonly compiler: string;
  readonly compilerVersion: string;
  readonly options: string;
  readonly expected: string;
  readonly actual: string;
  /** Folder of the finding (output folder joined with the stored relative path). */
  readonly dir: string;
  readonly createdAt: string;
  /** Triage's fingerprint (`clang:InstCombinePass`, `gcc:-ftree-vrp`, a bucket); null until triaged. */
  readonly fingerprint: string | null;
  /** What findings are grouped by: the fingerprint, else the bucket. */
  readonly group: string;
  /** Lines of the reduced program, once reduced. */
  readonly reducedLines: number | null;
  /** The reduced program (absolute when stored inside the output folder). */
  readonly reducedFile: string | null;
  /** `suspected`, `confirmed` or `cleared` for hangs checked in the background; null otherwise. */
  readonly hangStatus: string | null;
  /** True when the failure behaved differently between runs (every behaviour is in finding.json). */
  readonly nondeterministic: boolean;
  /** The note of the known bug it matched (a tracker URL), or null. */
  readonly known: string | null;
  /** A newer compiler of its family on which the same program did not show the known bug, or null. */
  readonly knownFixed: string | null;
}

/** A campaigns row as SQLite returns it (integers as bigints). */
export interface RawCampaign {
  id: bigint;
  started_at: string;
  ended_at: string | null;
  end_reason: string | null;
  config: string;
  compilers: string;
  seed_start: bigint;
  max_tests: bigint | null;
  programs: bigint;
  discarded: bigint;
  tests: bigint;
  findings: bigint;
  internal: bigint;
  counters: string;
  running_pid: bigint | null;
}

/** A findings row as SQLite returns it. */
export interface RawFinding {
  id: string;
  campaign_id: bigint;
  seed: bigint;
  outcome: string;
  bucket: string;
  compiler: string;
  compiler_version: string;
  options: string;
  expected: string;
  actual: string;
  dir: string;
  created_at: string;
  fingerprint: string | null;
  reduced_lines: bigint | null;
  reduced_file: string | null;
  hang_status: string | null;
  nondeterministic: bigint;
  known?: string | null;
  known_fixed?: string | null;
}

/** A campaign row in its typed form. */
export function campaignRow(r: RawCampaign): CampaignRow {
  return {
    id: Number(r.id),
    startedAt: r.started_at,
    endedAt: r.ended_at,
    endReason: r.end_reason,
    config: JSON.parse(r.config) as unknown,
    compilers: JSON.parse(r.compilers) as unknown,
    seedStart: r.seed_start,
    maxTests: r.max_tests === null ? null : Number(r.max_tests),
    programs: Number(r.programs),
    discarded: Number(r.discarded),
    tests: Number(r.tests),
    findings: Number(r.findings),
    internal: Number(r.internal),
    counters: JSON.parse(r.counters) as Record<string, number>,
    runningPid: r.running_pid === null ? null : Number(r.running_pid),
  };
}

/** A finding row in its typed form; `dir` and a relative `reduced_file` resolved against the output folder. */
export function findingRow(outDir: string, r: RawFinding, group: string): FindingRow {
  return {
    id: r.id,
    campaignId: Number(r.campaign_id),
    seed: String(r.seed),
    outcome: r.outcome,
    bucket: r.bucket,
    compiler: r.compiler,
    compilerVersion: r.compiler_version,
    options: r.options,
    expected: r.expected,
    actual: r.actual,
    dir: join(outDir, r.dir),
    createdAt: r.created_at,
    fingerprint: r.fingerprint,
    group,
    reducedLines: r.reduced_lines === null ? null : Number(r.reduced_lines),
    reducedFile:
      r.reduced_file === null ? null : isAbsolute(r.reduced_file) ? r.reduced_file : join(outDir, r.reduced_file),
    hangStatus: r.hang_status,
    nondeterministic: Number(r.nondeterministic) === 1,
    known: r.known ?? null,
    knownFixed: r.known_fixed ?? null,
  };
}
