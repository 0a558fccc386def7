// One `kiln fuzz` campaign as a whole process, timed from outside, with its figures read back the
// way a user reads them (the session's last line, then `kiln findings --json`).
import { runProcess } from '../../src/harness/process.js';

/** What one campaign did. */
export interface CampaignFigures {
  /** Wall seconds of the whole `kiln fuzz` process (start-up and end-of-session work included). */
  readonly sec: number;
  readonly programs: number;
  readonly tests: number;
  readonly findings: number;
  readonly buckets: number;
  readonly internal: number;
  readonly byOutcome: ReadonlyMap<string, number>;
}

/** The summary line of a `kiln fuzz` session: programs, tests, findings and internal cases. */
const SUMMARY_LINE = new RegExp(
  String.raw`this session (\d+) programs, (\d+) tests in [\d.]+ s; ` +
    String.raw`campaign total \d+ programs, (\d+) findings, (\d+) internal`,
);

/** Runs `kiln fuzz ARGS --out OUT` (`kiln` is the node arguments that start Kiln) and reads its figures. */
export async function runCampaign(
  kiln: readonly string[],
  out: string,
  args: readonly string[],
  timeoutMs: number,
  label: string,
): Promise<CampaignFigures> {
  const t0 = performance.now();
  const r = await runProcess(process.execPath, [...kiln, 'fuzz', ...args, '--out', out], {
    timeoutMs,
    maxOutputBytes: 1 << 26,
  });
  const sec = (performance.now() - t0) / 1000;
  const text = r.stdout + r.stderr;
  const m = SUMMARY_LINE.exec(text);
  if (!m) throw new Error(`kiln fuzz (${label}) did not end as expected:\n${text.slice(-2000)}`);
  const f = await runProcess(process.execPath, [...kiln, 'findings', '--json', '--group', 'bucket', '--out', out], {
    timeoutMs: 120_000,
    maxOutputBytes: 1 << 26,
  });
  const list = JSON.parse(f.stdout) as { bucket: string; outcome: string }[];
  const byOutcome = new Map<string, number>();
  for (const x of list) byOutcome.set(x.outcome, (byOutcome.get(x.outcome) ?? 0) + 1);
  return {
    sec,
    programs: Number(m[1]),
    tests: Number(m[2]),
    findings: Number(m[3]),
    buckets: new Set(list.map((x) => x.bucket)).size,
    internal: Number(m[4]),
    byOutcome,
  };
}
