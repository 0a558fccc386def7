import { isAbsolute, join } from 'node:path';
import type { CampaignRow, FindingRow } from './store.js';

// Typed forms of the store's raw rows.

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
    reducedFile: r.reduced_file === null ? null : isAbsolute(r.reduced_file) ? r.reduced_file : join(outDir, r.reduced_file),
    hangStatus: r.hang_status,
    nondeterministic: Number(r.nondeterministic) === 1,
  };
}
