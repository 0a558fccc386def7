// The refresh a running campaign gets: its report rewritten on a timer and once at the end, and a
// report that cannot be written is one warning, never an exception into the campaign.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ReportRefresher } from '../../src/campaign/report-refresher.js';
import { synthesiseCampaign } from './support/synth.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function campaign(): { out: string; id: number } {
  const work = mkdtempSync(join(tmpdir(), 'kiln-refresh-'));
  dirs.push(work);
  const out = join(work, 'out');
  const id = synthesiseCampaign(out, {
    start: '2026-01-01T00:00:00.000Z',
    compilers: [{ name: 'gcc', version: 'gcc 12' }],
    optionSets: ['-O0'],
    mode: 'csmith',
    size: 'small',
    programs: [{ seed: 1, minute: 1, genMs: 5 }],
    endMinute: 2,
    folders: false,
  });
  return { out, id };
}

describe('ReportRefresher', () => {
  it('rewrites the report on its timer and once more when finished', async () => {
    const { out, id } = campaign();
    const warnings: string[] = [];
    const r = new ReportRefresher(out, id, (m) => warnings.push(m));
    const file = join(out, 'report.html');
    r.start(50);
    const deadline = Date.now() + 60_000;
    while (!existsSync(file) && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 50));
    expect(existsSync(file)).toBe(true);
    const first = statSync(file).mtimeMs;
    await new Promise((ok) => setTimeout(ok, 20));
    expect(r.finish()).toBe(file);
    expect(statSync(file).mtimeMs).toBeGreaterThan(first);
    expect(warnings).toEqual([]);
  });

  it('warns once and returns undefined when the report cannot be written', () => {
    const { out, id } = campaign();
    // An "output folder" that is a plain file: the store cannot be opened.
    writeFileSync(join(out, 'blocker'), '');
    const warnings: string[] = [];
    const r = new ReportRefresher(join(out, 'blocker'), id, (m) => warnings.push(m));
    expect(r.finish()).toBeUndefined();
    expect(r.finish()).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('cannot write the report');
  });
});
