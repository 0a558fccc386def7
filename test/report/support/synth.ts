// A campaign synthesised straight into a store, with timestamps the caller chooses, so report tests
// know every number the page must show and the report benchmark can build 100,000 tests in seconds.
// Rows follow the schema kiln fuzz writes (one test per program × configuration, a folder per finding).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePolicy, type SizePreset } from '../../../src/gen/policy.js';
import type { ModeChoice } from '../../../src/gen/mode.js';
import { FINDINGS_DIR, KilnStore } from '../../../src/store/store.js';

/** A finding of a synthesised program (the configuration's test gets its outcome). */
export interface SynthFinding {
  readonly compiler: string;
  readonly options: string;
  readonly outcome: string;
  readonly bucket: string;
  readonly fingerprint?: string;
  /** A reduced program: written as reduced.c with a reduced/report.md bundle. */
  readonly reduced?: string;
  readonly stderr?: string;
  readonly actual?: string;
}

/** A synthesised program: finished `minute` minutes after the campaign's start. */
export interface SynthProgram {
  readonly seed: number;
  readonly minute: number;
  readonly status?: 'tested' | 'discarded';
  readonly genMs: number;
  readonly findings?: readonly SynthFinding[];
}

/** The campaign to synthesise. */
export interface SynthCampaign {
  readonly start: string;
  readonly compilers: readonly { name: string; version: string }[];
  readonly optionSets: readonly string[];
  readonly mode: ModeChoice;
  readonly size: SizePreset;
  readonly programs: readonly SynthProgram[];
  /** Session end, in minutes after the start. */
  readonly endMinute: number;
  /** Write finding folders (prog.c, finding.json, repro.sh; reduced.c and reduced/report.md when reduced). */
  readonly folders: boolean;
}

/** Writes the campaign into a new store in `outDir`; returns its id. */
export function synthesiseCampaign(outDir: string, c: SynthCampaign): number {
  const store = KilnStore.open(outDir, 'write');
  try {
    const policy = parsePolicy({}, c.size);
    const at = (minute: number): string => new Date(Date.parse(c.start) + minute * 60_000).toISOString();
    const db = store.db;
    let id = 0;
    db.transaction(() => {
      id = store.createCampaign({
        config: { optionSets: c.optionSets, limits: {}, policy, mode: c.mode, rerun: true, jobs: 2, timeMs: null },
        compilers: c.compilers.map((k) => ({ ...k, command: k.name })),
        seedStart: 1n,
      });
      db.prepare(
        'INSERT INTO sessions (campaign_id, started_at, ended_at, end_reason, pid) VALUES (?, ?, ?, ?, ?)',
      ).run(id, c.start, at(c.endMinute), 'tests', 1);
      const seed = db.prepare(
        'INSERT INTO seeds (campaign_id, seed, status, gen_ms, finished_at) VALUES (?, ?, ?, ?, ?)',
      );
      const test = db.prepare(
        'INSERT INTO tests (campaign_id, seed, compiler, compiler_version, options, outcome, duration_ms, ' +
          'bucket, finding_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      // biome-ignore format: embedded text
      const finding = db.prepare(
        `INSERT INTO findings (id, campaign_id, seed, outcome, bucket, compiler, compiler_version, options, command, expected, actual, stderr, dir, created_at, fingerprint, reduced_lines, reduced_file)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const counters: Record<string, number> = {};
      let tests = 0;
      let findings = 0;
      let discarded = 0;
      for (const p of c.programs) {
        const status = p.status ?? 'tested';
        seed.run(id, p.seed, status, p.genMs, at(p.minute));
        if (status !== 'tested') {
          discarded++;
          continue;
        }
        for (const k of c.compilers) {
          for (const o of c.optionSets) {
            const f = p.findings?.find((x) => x.compiler === k.name && x.options === o);
            const outcome = f?.outcome ?? 'ok';
            const fid = f ? `${id}-${p.seed}-${k.name}${o.replace(/[^A-Za-z0-9]+/g, '')}` : null;
            test.run(id, p.seed, k.name, k.version, o, outcome, 100, f?.bucket ?? null, fid);
            counters[outcome] = (counters[outcome] ?? 0) + 1;
            tests++;
            if (!f || !fid) continue;
            findings++;
            const dir = join(FINDINGS_DIR, fid);
            const reducedLines = f.reduced === undefined ? null : f.reduced.split('\n').filter((l) => l !== '').length;
            finding.run(
              fid,
              id,
              p.seed,
              f.outcome,
              f.bucket,
              k.name,
              k.version,
              o,
              JSON.stringify([k.name, ...o.split(' ').filter(Boolean), 'prog.c', '-o', 'prog']),
              'checksum = 0000000000000001',
              f.actual ?? 'checksum = 0000000000000002',
              f.stderr ?? '',
              dir,
              at(p.minute),
              f.fingerprint ?? null,
              reducedLines,
              f.reduced === undefined ? null : join(dir, 'reduced.c'),
            );
            if (c.folders) writeFolder(join(outDir, dir), fid, f);
          }
        }
      }
      db.prepare(
        'UPDATE campaigns SET started_at = ?, ended_at = ?, end_reason = ?, programs = ?, discarded = ?, ' +
          'tests = ?, findings = ?, counters = ? WHERE id = ?',
      ).run(
        c.start,
        at(c.endMinute),
        'tests',
        c.programs.length,
        discarded,
        tests,
        findings,
        JSON.stringify(counters),
        id,
      );
    })();
    return id;
  } finally {
    store.close();
  }
}

function writeFolder(dir: string, id: string, f: SynthFinding): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'prog.c'),
    `/* kiln: expected "checksum = 0000000000000001" */\nint main(void) { return 0; }\n`,
  );
  writeFileSync(join(dir, 'finding.json'), `${JSON.stringify({ id, outcome: f.outcome, bucket: f.bucket })}\n`);
  writeFileSync(join(dir, 'repro.sh'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
  if (f.reduced !== undefined) {
    writeFileSync(join(dir, 'reduced.c'), f.reduced);
    mkdirSync(join(dir, 'reduced'), { recursive: true });
    writeFileSync(join(dir, 'reduced', 'report.md'), `# ${f.bucket}\n`);
  }
}
