// Headless Chromium for report tests and the report benchmark: Debian's chromium driven by
// playwright-core (never a downloaded browser). Fails with a reason when chromium is missing.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (installed by `scripts/ensure-tools.mjs`, profile test). */
const CHROMIUM = '/usr/bin/chromium';

/** Flags that keep a root, sandboxless, offline Chromium quiet and off the network. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches headless Chromium (playwright gives it a fresh user-data dir). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: run 'node scripts/ensure-tools.mjs --profile test' (apt-get install -y chromium)`,
    );
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** A report opened in a page, with what it logged and requested. */
export interface OpenedReport {
  readonly page: Page;
  /** Console errors and uncaught exceptions. */
  readonly errors: string[];
  /** Every request other than the page's own file. */
  readonly requests: string[];
  /** Milliseconds from navigation to the page's first render being done (wall clock). */
  readonly loadMs: number;
  /**
   * The renderer's main thread up to then (CDP Performance.getMetrics, ms): `cpuMs` is its CPU
   * time (ThreadTime: what the page cost, nearly independent of other load on the machine);
   * `taskMs`, `scriptMs`, `layoutMs` are wall time spent in tasks, scripts and layout.
   */
  readonly mainThread: {
    readonly cpuMs: number;
    readonly taskMs: number;
    readonly scriptMs: number;
    readonly layoutMs: number;
  };
}

/** Opens a report file and waits until its script has drawn the plots. */
export async function openReport(
  browser: Browser,
  file: string,
  viewport = { width: 1200, height: 900 },
): Promise<OpenedReport> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  const requests: string[] = [];
  const url = new URL(`file://${file}`).href;
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async (): Promise<Map<string, number>> =>
    new Map((await cdp.send('Performance.getMetrics')).metrics.map((x) => [x.name, x.value]));
  const before = await metrics();
  const t0 = Date.now();
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction("document.body.dataset.ready === 'done'", undefined, { timeout: 60_000 });
  const loadMs = Date.now() - t0;
  const after = await metrics();
  await cdp.detach();
  // Counters cover the renderer's life: the blank page the tab started with is subtracted, unless
  // the navigation moved the tab to a new renderer (its counters then start below the old ones).
  const ms = (name: string): number => {
    const a = after.get(name) ?? 0;
    const b = before.get(name) ?? 0;
    return Math.round(1000 * (a >= b ? a - b : a));
  };
  return {
    page,
    errors,
    requests,
    loadMs,
    mainThread: {
      cpuMs: ms('ThreadTime'),
      taskMs: ms('TaskDuration'),
      scriptMs: ms('ScriptDuration'),
      layoutMs: ms('LayoutDuration'),
    },
  };
}
