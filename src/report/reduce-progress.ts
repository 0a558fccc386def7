// What a text reduction prints: its progress on stderr (a live status line on a terminal, one
// line per pass otherwise) and the one-line summary of a finished reduction.
import type { ReduceEvent, TextReduceResult } from '../reduce/text/manager.js';

/** A finished text reduction in one line: sizes, tests, time, and why it stopped if not at a fixpoint. */
export function describeTextReduction(res: TextReduceResult): string {
  return (
    `${res.originalBytes} → ${res.bytes} bytes, ${res.lines} lines; ${res.tests} ` +
    `tests${guardNote(res)}, ${(res.ms / 1000).toFixed(1)}` +
    `s${res.stoppedBy === 'fixpoint' ? '' : ` (stopped: ${res.stoppedBy})`}`
  );
}

/** ` (N of them with the last UB guard, …)` when that guard was deferred to checkpoints. */
export function guardNote(res: TextReduceResult): string {
  if (res.verifications === 0) return '';
  return (
    ` (${res.verifications} of them with the last UB ` +
    `guard${res.reverts > 0 ? `, which undid steps ${res.reverts} time${res.reverts === 1 ? '' : 's'}` : ''})`
  );
}

/** Progress on stderr: a live status line on a terminal, one line per pass otherwise. */
export function progressPrinter(quiet: boolean): ((e: ReduceEvent) => void) & { end(): void } {
  const tty = process.stderr.isTTY === true;
  let pass = '';
  let round = 0;
  let live = false;
  const show = (bytes: number, lines: number, extra = ''): void => {
    const line = `kiln reduce: round ${round} ${pass.padEnd(12)} ${bytes} bytes, ${lines} lines${extra}`;
    if (tty) {
      process.stderr.write(`\r\x1b[K${line}`);
      live = true;
    } else {
      process.stderr.write(`${line}\n`);
    }
  };
  const f = (e: ReduceEvent): void => {
    if (quiet) return;
    if (e.kind === 'start') process.stderr.write(`kiln reduce: original ${e.bytes} bytes, ${e.lines} lines\n`);
    else if (e.kind === 'pass') {
      pass = e.pass;
      round = e.round;
      show(e.bytes, e.lines);
    } else if (e.kind === 'verified') {
      if (e.reverted) {
        if (tty && live) process.stderr.write('\n');
        live = false;
        process.stderr.write(
          `kiln reduce: the deferred UB guards reject the latest steps: back to ${e.bytes} bytes, ${e.lines} lines\n`,
        );
      } else show(e.bytes, e.lines, tty ? ' (all guards pass)' : ' pass all guards');
    } else if (tty) show(e.bytes, e.lines, ` (${e.tests} tests)`);
  };
  return Object.assign(f, {
    end(): void {
      if (live) process.stderr.write('\n');
    },
  });
}
