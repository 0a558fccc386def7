// `kiln report` checked in a real browser: a campaign whose every number is known is synthesised in
// a store, its report is opened in headless Chromium, and the page must load without errors or
// network requests, draw each plot with the marks those numbers imply, show every finding group
// with its test case, and link only to files that exist.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../../src/ir/census.js';
import { writeReport } from '../../src/report/html/index.js';
import { KilnStore } from '../../src/store/store.js';
import { runKiln } from '../harness/support/cli.js';
import { requireTool } from '../support/cc.js';
import { launchChromium, openReport, type OpenedReport } from './support/browser.js';
import { synthesiseCampaign, type SynthProgram } from './support/synth.js';

const START = '2026-01-01T00:00:00.000Z';
const REDUCED = 'int main(void) {\n  return 1;\n}\n';
const ICE = 'prog.c:3:1: internal compiler error: in expand_expr_real_1, at expr.cc:8000';
const WRONG = {
  compiler: 'clang',
  options: '-O2',
  outcome: 'wrong-code',
  bucket: 'wrong-code:clang:-O2',
  fingerprint: 'clang:InstCombinePass',
};

/**
 * Seeds 1–11 are tested by 2 compilers × 2 option sets (44 tests) and finish in minute `seed`;
 * seed 12 is discarded. clang -O2 miscompiles seeds 2, 5 (reduced) and 9, all triaged to one pass;
 * gcc -O2 crashes on seed 7 (not triaged); seed 10's gcc -O0 binary crashes, seed 11's clang -O0
 * binary hangs. Four groups: the page opens three, the fourth is a template until opened.
 */
const PROGRAMS: SynthProgram[] = Array.from({ length: 12 }, (_, i) => {
  const seed = i + 1;
  const findings =
    seed === 2 || seed === 9
      ? [WRONG]
      : seed === 5
        ? [{ ...WRONG, reduced: REDUCED }]
        : seed === 7
          ? [
              {
                compiler: 'gcc',
                options: '-O2',
                outcome: 'compiler-crash',
                bucket: 'compiler-crash:gcc:in expand_expr_real_1',
                stderr: ICE,
                actual: 'internal compiler error: in expand_expr_real_1',
              },
            ]
          : seed === 10
            ? [
                {
                  compiler: 'gcc',
                  options: '-O0',
                  outcome: 'binary-crash',
                  bucket: 'binary-crash:gcc:SIGSEGV',
                  actual: 'SIGSEGV',
                },
              ]
            : seed === 11
              ? [
                  {
                    compiler: 'clang',
                    options: '-O0',
                    outcome: 'binary-hang',
                    bucket: 'binary-hang:clang:-O0',
                    actual: 'timeout after 10 s',
                  },
                ]
              : [];
  return {
    seed,
    minute: seed + 0.5,
    genMs: seed * 10,
    ...(seed === 12 ? { status: 'discarded' as const } : {}),
    findings,
  };
});

const SAMPLE = 4;

/** Marks of one kind (Plot's aria-label: rect, cell, bar, text, …) inside a plot. */
async function marks(page: Page, selector: string, kind: string): Promise<number> {
  return page.$$eval(`${selector} svg g[aria-label="${kind}"] > *`, (els) => els.length);
}

/** The screenshot every run leaves, for a look at the page. */
const ARTIFACT = fileURLToPath(new URL('../../test-artifacts/report.png', import.meta.url));

describe('kiln report', () => {
  let work: string;
  let out: string;
  let browser: Browser;
  let report: OpenedReport;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'kiln-report-'));
    out = join(work, 'out');
    synthesiseCampaign(out, {
      start: START,
      compilers: [
        { name: 'gcc', version: 'gcc 12.2.0' },
        { name: 'clang', version: 'clang 16.0.6' },
      ],
      optionSets: ['-O0', '-O2'],
      mode: 'mixed',
      size: 'small',
      programs: PROGRAMS,
      endMinute: 13,
      folders: true,
    });
    const w = writeReport(out, { sample: SAMPLE, now: '2026-01-01T01:00:00.000Z' });
    expect(w.file).toBe(resolve(out, 'report.html'));
    browser = await launchChromium();
    report = await openReport(browser, w.file);
  });

  afterAll(async () => {
    await browser?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('loads without console errors and without any network request', () => {
    expect(report.errors).toEqual([]);
    expect(report.requests).toEqual([]);
  });

  it('is one self-contained file: scripts and styles inline', () => {
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).not.toMatch(/<script[^>]*\ssrc=/i);
    expect(html).not.toMatch(/<link[^>]*stylesheet/i);
    expect(html).toContain("default-src 'none'");
  });

  it('summarises the campaign', async () => {
    const text = await report.page.$eval('#summary', (e) => e.textContent ?? '');
    for (const s of [
      'gcc 12.2.0',
      'clang 16.0.6',
      '-O0',
      '-O2',
      'mixed',
      '12 (1 discarded by the generator)',
      '44',
      '6 in 4 groups (1 triaged',
      '13 min 0 s',
    ])
      expect(text).toContain(s);
  });

  it('draws every time plot with one bar per busy time bin', async () => {
    // One-minute bins: tests in minutes 1–11, findings in 2, 5, 7, 9, 10, 11, new groups in 2, 7, 10, 11.
    expect(await marks(report.page, '#plot-tests', 'rect')).toBe(11);
    expect(await marks(report.page, '#plot-findings', 'rect')).toBe(6);
    expect(await marks(report.page, '#plot-new-groups', 'rect')).toBe(4);
  });

  it('draws the outcome heat map: one cell per configuration and outcome that occurred', async () => {
    // 4 configurations all have ok (10, 10, 10, 8 tests); gcc -O0 also 1 binary-crash, gcc -O2 1
    // compiler-crash, clang -O0 1 binary-hang, clang -O2 3 wrong-code.
    expect(await marks(report.page, '#plot-outcomes', 'cell')).toBe(8);
    expect(await marks(report.page, '#plot-outcomes', 'text')).toBe(8);
    const labels = await report.page.$$eval('#plot-outcomes svg g[aria-label="text"] > *', (els) =>
      els.map((e) => e.textContent).sort(),
    );
    expect(labels).toEqual(['1', '1', '1', '10', '10', '10', '3', '8']);
  });

  it("draws the generator's side: modes, generation time, sample size, live code, census", async () => {
    expect(await marks(report.page, '#plot-modes', 'bar')).toBe(3);
    // 11 tested programs with generation times 10, 20, …, 110 ms fall in 11 distinct bins of 24.
    expect(await marks(report.page, '#plot-genms', 'rect')).toBe(11);
    expect(await marks(report.page, '#plot-census', 'bar')).toBe(Object.keys(FEATURES).length);
    // Four sampled programs are binned into at most two bars.
    for (const id of ['#plot-sizes', '#plot-statements']) {
      const n = await marks(report.page, id, 'rect');
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThanOrEqual(2);
    }
    const text = await report.page.$eval('#generator', (e) => e.textContent ?? '');
    expect(text).toContain(`${SAMPLE} programs regenerated from their seeds`);
  });

  it('has one section per group, with its test case, message, configurations and plot', async () => {
    const page = report.page;
    const keys = await page.$$eval('details.group .key', (els) => els.map((e) => e.textContent));
    expect(keys).toEqual([
      'clang:InstCombinePass',
      'compiler-crash:gcc:in expand_expr_real_1',
      'binary-crash:gcc:SIGSEGV',
      'binary-hang:clang:-O0',
    ]);
    const wrong = '#group-1';
    expect(await page.$eval(`${wrong} summary`, (e) => e.textContent)).toContain('3 findings');
    expect(await page.$eval(`${wrong} pre code`, (e) => e.textContent)).toBe(REDUCED);
    expect(await page.$$eval(`${wrong} button.copy`, (els) => els.length)).toBe(1);
    expect(await page.$eval(wrong, (e) => e.textContent)).toContain('clang -O2');
    expect(await page.$$eval(`${wrong} ul.findings li`, (els) => els.length)).toBe(3);
    const crash = '#group-2';
    expect(await page.$eval(`${crash} pre.stderr`, (e) => e.textContent)).toBe(ICE);
    expect(await page.$eval(crash, (e) => e.textContent)).toContain('Not reduced yet');
    // The fourth section is closed, its body an inert template until it is opened.
    const hang = '#group-4';
    expect(await page.$eval(hang, (e) => (e as unknown as { open: boolean }).open)).toBe(false);
    expect(await page.$$eval(`${hang} .group-plot`, (els) => els.length)).toBe(0);
    // Opening a section draws its plot: findings of the group per time bin.
    await page.$$eval('details.group', (els) => {
      for (const d of els) d.setAttribute('open', '');
    });
    await page.waitForFunction("[...document.querySelectorAll('details.group')].every((d) => d.dataset.drawn === '1')");
    expect(await marks(page, `${wrong} .group-plot`, 'rect')).toBe(3);
    expect(await marks(page, `${crash} .group-plot`, 'rect')).toBe(1);
    expect(await marks(page, `${hang} .group-plot`, 'rect')).toBe(1);
    expect(await page.$eval(hang, (e) => e.textContent)).toContain('timeout after 10 s');
    expect(report.errors).toEqual([]);
  });

  it('links only to files that exist, including the bug bundle', async () => {
    await report.page.$$eval('details.group', (els) => {
      for (const d of els) d.setAttribute('open', '');
    });
    const hrefs = await report.page.$$eval('a[href]', (els) =>
      els.map((e) => e.getAttribute('href')!).filter((h) => !h.startsWith('#')),
    );
    expect(hrefs).toContain('findings/1-5-clangO2/reduced/report.md');
    expect(hrefs.length).toBeGreaterThan(8);
    for (const h of hrefs) expect(existsSync(join(out, decodeURIComponent(h))), h).toBe(true);
  });

  it('keeps links working when the page is written elsewhere (-o)', () => {
    const file = join(work, 'elsewhere', 'deep', 'r.html');
    mkdirSync(dirname(file), { recursive: true });
    writeReport(out, { file, sample: 0 });
    const html = readFileSync(file, 'utf8');
    const hrefs = [...html.matchAll(/href="([^"#][^"]*)"/g)].map((m) => m[1]!);
    expect(hrefs.length).toBeGreaterThan(8);
    for (const h of hrefs) expect(existsSync(join(dirname(file), decodeURIComponent(h))), h).toBe(true);
  });

  it('saves a screenshot as the test artifact', async () => {
    // In the checkout (git-ignored), replaced by each run: a temp folder per run would pile up.
    const png = ARTIFACT;
    mkdirSync(dirname(png), { recursive: true });
    await report.page.screenshot({ path: png, fullPage: true });
    expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
    console.log(`kiln report screenshot: ${png}`);
  });
});

describe('kiln report with more groups than one page', () => {
  it('shows 100 groups at load and adds the rest on request, each drawing when opened', async () => {
    const work = mkdtempSync(join(tmpdir(), 'kiln-report-pages-'));
    const browser = await launchChromium();
    try {
      const out = join(work, 'out');
      // 130 programs, each with a finding in a bucket of its own: 130 groups.
      const programs: SynthProgram[] = Array.from({ length: 130 }, (_, i) => ({
        seed: i + 1,
        minute: i,
        genMs: 1,
        findings: [
          {
            compiler: 'gcc',
            options: '-O0',
            outcome: 'binary-crash',
            bucket: `binary-crash:gcc:case-${i + 1}`,
            actual: 'SIGSEGV',
          },
        ],
      }));
      synthesiseCampaign(out, {
        start: START,
        compilers: [{ name: 'gcc', version: 'gcc 12.2.0' }],
        optionSets: ['-O0'],
        mode: 'csmith',
        size: 'small',
        programs,
        endMinute: 131,
        folders: false,
      });
      const w = writeReport(out, { sample: 0 });
      const r = await openReport(browser, w.file);
      const page = r.page;
      expect(await page.$$eval('details.group', (els) => els.length)).toBe(100);
      expect(await page.$eval('#more-groups', (e) => e.textContent)).toBe('show 30 more groups (30 not shown)');
      await page.click('#more-groups');
      expect(await page.$$eval('details.group', (els) => els.length)).toBe(130);
      expect(await page.$$eval('#more-groups', (els) => els.length)).toBe(0);
      expect(await page.$eval('#group-130 .key', (e) => e.textContent)).toBe('binary-crash:gcc:case-130');
      await page.$eval('#group-130', (d) => d.setAttribute('open', ''));
      await page.waitForFunction("document.getElementById('group-130').dataset.drawn === '1'");
      expect(await marks(page, '#group-130 .group-plot', 'rect')).toBe(1);
      expect(await page.$eval('#group-130', (e) => e.textContent)).toContain('SIGSEGV');
      expect(r.errors).toEqual([]);
      expect(r.requests).toEqual([]);
    } finally {
      await browser.close();
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('kiln report with internal cases', () => {
  it('lists them as Kiln bugs, linked to their folders', () => {
    const work = mkdtempSync(join(tmpdir(), 'kiln-report-internal-'));
    try {
      const out = join(work, 'out');
      const id = synthesiseCampaign(out, {
        start: START,
        compilers: [{ name: 'gcc', version: 'gcc 12.2.0' }],
        optionSets: ['-O0'],
        mode: 'csmith',
        size: 'small',
        programs: PROGRAMS.slice(0, 2),
        endMinute: 3,
        folders: false,
      });
      mkdirSync(join(out, 'internal', `${id}-2`), { recursive: true });
      const store = KilnStore.open(out, 'write');
      try {
        store.db
          .prepare(
            'INSERT INTO internal_cases (id, campaign_id, seed, expected, actual, dir, created_at) VALUES ' +
              '(?, ?, ?, ?, ?, ?, ?)',
          )
          .run(`${id}-2`, id, 2, 'checksum = 01', 'checksum = 02', join('internal', `${id}-2`), START);
        store.db.prepare('UPDATE campaigns SET internal = 1 WHERE id = ?').run(id);
      } finally {
        store.close();
      }
      const html = readFileSync(writeReport(out, { sample: 0 }).file, 'utf8');
      expect(html).toContain('<section id="internal">');
      expect(html).toContain(`<a href="internal/${id}-2">${id}-2</a>`);
      expect(html).toContain('<code>checksum = 02</code>');
      expect(html).toContain('1 program on which every compiler agreed against the interpreter');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('kiln report (command)', () => {
  it('writes the report and names the file', async () => {
    const work = mkdtempSync(join(tmpdir(), 'kiln-report-cli-'));
    try {
      const out = join(work, 'out');
      synthesiseCampaign(out, {
        start: START,
        compilers: [{ name: 'gcc', version: 'gcc 12.2.0' }],
        optionSets: ['-O0'],
        mode: 'csmith',
        size: 'small',
        programs: PROGRAMS.slice(0, 3),
        endMinute: 4,
        folders: false,
      });
      const r = await runKiln(['report', '--out', out, '--sample', '0', '-o', join(work, 'r.html')]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(join(work, 'r.html'));
      expect(readFileSync(join(work, 'r.html'), 'utf8')).toContain('Kiln campaign 1');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('is written by kiln fuzz when a session ends', async () => {
    requireTool('gcc');
    const work = mkdtempSync(join(tmpdir(), 'kiln-report-fuzz-'));
    try {
      const out = join(work, 'out');
      const r = await runKiln([
        'fuzz',
        '--compilers',
        'gcc',
        '--opts',
        '-O0',
        '--tests',
        '2',
        '--size',
        'small',
        '--mode',
        'csmith',
        '-j',
        '1',
        '--out',
        out,
      ]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toContain(`report: ${join(out, 'report.html')}`);
      const html = readFileSync(join(out, 'report.html'), 'utf8');
      expect(html).toContain('Kiln campaign 1');
      // Written after the session ended: the page reports it stopped, with both programs tested.
      expect(html).toContain('stopped');
      expect(html).toContain('2 programs regenerated from their seeds');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('fails with a coded one-line error for a folder without a campaign, or a bad flag', async () => {
    const work = mkdtempSync(join(tmpdir(), 'kiln-report-cli-'));
    try {
      const missing = await runKiln(['report', '--out', join(work, 'nothing')]);
      expect(missing.status).toBe(2);
      expect(missing.stderr).toContain('error[KILN_STATE]');
      expect(missing.stderr).not.toContain('    at ');
      const bad = await runKiln(['report', '--out', work, '--sample', 'many']);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain('error[KILN_BAD_OPTION]');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
