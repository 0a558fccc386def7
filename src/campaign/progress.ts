/** Where live progress goes: a TTY gets one rewritten status line, anything else periodic lines. */
export interface ProgressSink {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Counters shown by the progress display. */
export interface ProgressCounts {
  programs: number;
  discarded: number;
  tests: number;
  findings: number;
  /** Findings of known bugs (src/triage/known.ts), among `findings`. */
  known: number;
  newBuckets: number;
  internal: number;
  flaky: number;
  readonly outcomes: Map<string, number>;
}

/**
 * Live campaign progress: tests per second, outcomes by class, new buckets. On a TTY one status
 * line is rewritten in place (every 0.5 s); otherwise a plain line is printed every 10 s.
 */
export class Progress {
  readonly counts: ProgressCounts = {
    programs: 0,
    discarded: 0,
    tests: 0,
    findings: 0,
    known: 0,
    newBuckets: 0,
    internal: 0,
    flaky: 0,
    outcomes: new Map(),
  };
  private readonly started = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private lineShown = false;
  private readonly tty: boolean;

  constructor(
    private readonly sink: ProgressSink,
    private readonly label: string,
    intervalMs?: number,
  ) {
    this.tty = !!sink.isTTY;
    const every = intervalMs ?? (this.tty ? 500 : 10_000);
    this.timer = setInterval(() => this.tick(), every);
    this.timer.unref();
  }

  /** Counts one finished (program, configuration) test (for the rate). */
  test(): void {
    this.counts.tests++;
  }

  /** Counts the final outcome of one (program, configuration) pair. */
  outcome(outcome: string): void {
    this.counts.outcomes.set(outcome, (this.counts.outcomes.get(outcome) ?? 0) + 1);
  }

  /** Prints a line (a finding, a warning) without garbling the status line. */
  println(text: string, stream: ProgressSink = this.sink): void {
    this.clear();
    stream.write(text.endsWith('\n') ? text : `${text}\n`);
    if (this.tty) this.draw();
  }

  /** Stops the display and removes the status line. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }

  /** The status text. */
  status(): string {
    const c = this.counts;
    const secs = Math.max((Date.now() - this.started) / 1000, 0.001);
    const outcomes = [...c.outcomes].filter(([o]) => o !== 'ok').map(([o, n]) => `${o} ${n}`);
    const parts = [
      `${this.label} ${formatElapsed(secs)}`,
      `${c.programs} programs, ${c.tests} tests (${(c.tests / secs).toFixed(1)}/s)`,
      `ok ${c.outcomes.get('ok') ?? 0}${outcomes.length ? `, ${outcomes.join(', ')}` : ''}`,
      `${c.findings} findings${c.known ? ` (${c.known} known)` : ''}, ${c.newBuckets} new buckets`,
    ];
    if (c.internal) parts.push(`${c.internal} INTERNAL`);
    if (c.discarded) parts.push(`${c.discarded} discarded`);
    if (c.flaky) parts.push(`${c.flaky} not reproduced`);
    return parts.join(' | ');
  }

  private tick(): void {
    if (this.tty) this.draw();
    else this.sink.write(`${this.status()}\n`);
  }

  private draw(): void {
    const width = this.sink.columns ?? 120;
    const s = this.status();
    this.sink.write(`\r\x1b[K${s.length > width - 1 ? `${s.slice(0, width - 2)}…` : s}`);
    this.lineShown = true;
  }

  private clear(): void {
    if (this.tty && this.lineShown) this.sink.write('\r\x1b[K');
    this.lineShown = false;
  }
}

/** `75` → `1m15s`. */
function formatElapsed(secs: number): string {
  const s = Math.floor(secs);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
