// The second reduction of a crash finding: its IR-reduced program reduced further as text, with
// the finding's own signature-matching repro.sh as the test, into a case that compiles without
// a warning on the newest gcc and clang that accept its features. The IR reducer keeps programs
// the interpreter can run, so its result still holds the checksum helpers, unused variables and
// functions that lost their `return`; the text reducer removes what the crash does not need, and
// `tidyWarnings` fixes the warnings a compiler engineer would otherwise fix by hand before filing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { EmittedFile } from '../emit/files.js';
import { detectCompilers } from '../harness/compilers.js';
import { testConfiguration } from '../harness/execute.js';
import { reproScript } from '../harness/repro.js';
import { TempRoot } from '../harness/tempdir.js';
import { programRequires } from '../ir/census.js';
import type { FindingReduction } from './finding-types.js';
import { InterestingnessTest } from './text/interesting.js';
import type { TextReduceResult } from './text/manager.js';
import { reduceFile } from './text/reduce-file.js';
import { shq } from './text/scripts.js';
import { ValidityChecker, validityCompilersFor, type ValidityResult } from './validity.js';

/** A diagnostic of a strict validity check, placed in the file. */
interface Warning {
  readonly line: number;
  readonly column: number;
  readonly message: string;
  /** The `-W` option it names (`unused-variable`), or ''. */
  readonly option: string;
}

/** The warnings (and errors) of a strict check, with their places. */
function placed(v: ValidityResult): Warning[] {
  const out: Warning[] = [];
  for (const d of v.diagnostics) {
    const m = /^[^:\s]+:(\d+):(\d+):\s*(?:warning|error):\s*(.*)$/.exec(d.line);
    if (!m) continue;
    const option = /\[-W(?:error=)?([\w-]+)=?\]\s*$/.exec(m[3]!)?.[1] ?? '';
    out.push({ line: Number(m[1]), column: Number(m[2]), message: m[3]!, option });
  }
  return out;
}

/**
 * Texts one edit away from `text` that may silence `w`, most specific first: the fix a person
 * would make (a `return 0;`, a `(void)` for an unused parameter, braces for an empty body), then
 * deleting the line it is on (an unused declaration, a statement without effect), and last a `(void)`
 * use for an unused variable whose line cannot go.
 */
export function warningFixes(text: string, w: Warning): string[] {
  const lines = text.split('\n');
  const at = w.line - 1;
  if (at < 0 || at >= lines.length) return [];
  const line = lines[at]!;
  const col = Math.max(0, w.column - 1);
  const withLine = (replacement: readonly string[]): string =>
    [...lines.slice(0, at), ...replacement, ...lines.slice(at + 1)].join('\n');
  const out: string[] = [];
  if (w.option === 'return-type' && line[col] === '}')
    out.push(withLine([`${line.slice(0, col)}return 0; ${line.slice(col)}`]));
  const param = /unused parameter '([A-Za-z_]\w*)'/.exec(w.message)?.[1];
  if (param) {
    // `(void)p;` as the first statement of the body that follows the parameter list.
    const rest = lines.slice(at).join('\n');
    const brace = rest.indexOf('{', col);
    if (brace >= 0) {
      const before = lines.slice(0, at).join('\n');
      out.push(`${before}${at > 0 ? '\n' : ''}${rest.slice(0, brace + 1)} (void)${param};${rest.slice(brace + 1)}`);
    }
  }
  if (w.option === 'empty-body' && line[col] === ';')
    out.push(withLine([`${line.slice(0, col)}{ }${line.slice(col + 1)}`]));
  out.push(withLine([]));
  // An unused variable goes with its line when it can; one the crash needs (an address-taken label
  // table, a counter nothing reads) stays, and `(void)e;` after its declaration is a use.
  const unused = /(?:unused variable|variable) '([A-Za-z_]\w*)'(?: set but not used)?/.exec(w.message);
  if (unused && (w.option === 'unused-variable' || w.option.startsWith('unused-but-set-variable'))) {
    const semi = line.indexOf(';', col);
    if (semi >= 0) out.push(withLine([`${line.slice(0, semi + 1)} (void)${unused[1]};${line.slice(semi + 1)}`]));
  }
  return out;
}

/**
 * Fixes warnings one at a time while the test still holds: each accepted edit leaves fewer
 * diagnostics than before, or as many in a shorter text (and no new error). Returns the text
 * (unchanged when nothing could be fixed) and how many warnings are left.
 */
export async function tidyWarnings(
  text: string,
  checker: ValidityChecker,
  test: (text: string) => Promise<boolean>,
  fileName = 'prog.c',
  maxEdits = 60,
): Promise<{ text: string; warnings: number }> {
  const strict = checker.strict ? checker : checker.strictly();
  const check = async (t: string): Promise<{ errors: number; warnings: Warning[] }> => {
    const v = await strict.check([{ name: fileName, content: t }]);
    return { errors: v.diagnostics.filter((d) => d.code !== 'warning').length, warnings: placed(v) };
  };
  let current = text;
  let state = await check(current);
  const base = state.errors;
  const seen = new Set([current]);
  // An edit that leaves fewer warnings is taken first; else a deletion that leaves as many (an
  // unused variable's last use removed makes the variable the warning, and its line goes next).
  const pick = async (fewer: boolean): Promise<{ text: string; state: typeof state } | undefined> => {
    for (const w of state.warnings)
      for (const candidate of warningFixes(current, w)) {
        if (seen.has(candidate) || (!fewer && candidate.length >= current.length)) continue;
        const s = await check(candidate);
        if (s.errors > base || s.warnings.length > state.warnings.length) continue;
        if (fewer && s.warnings.length === state.warnings.length) continue;
        if (!(await test(candidate))) continue;
        return { text: candidate, state: s };
      }
    return undefined;
  };
  for (let edits = 0; edits < maxEdits && state.warnings.length > 0; edits++) {
    const next = (await pick(true)) ?? (await pick(false));
    if (!next) break;
    current = next.text;
    state = next.state;
    seen.add(current);
  }
  return { text: current, warnings: state.warnings.length };
}

/** What the text phase did. */
export interface CrashTextReduction {
  readonly reduction: FindingReduction;
  /** The text reducer's figures (undefined when it did not run). */
  readonly text?: TextReduceResult;
  /** Warnings left on the validity compilers (0: the case compiles cleanly with -Wall -Wextra). */
  readonly warnings: number;
  readonly seconds: number;
}

/** Options of {@link reduceCrashText}. */
export interface CrashTextOptions {
  readonly jobs?: number;
  readonly maxTimeMs?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (line: string) => void;
  /** The validity check (default: the newest gcc and clang installed that accept the program's features). */
  readonly validity?: ValidityChecker;
}

/**
 * Reduces a crash finding's IR-reduced program further as text (one-file programs; others are
 * returned as they are), with the reduced program's own repro.sh, and tidies its warnings.
 */
export async function reduceCrashText(r: FindingReduction, o: CrashTextOptions = {}): Promise<CrashTextReduction> {
  const started = Date.now();
  const say = o.onProgress ?? (() => undefined);
  if (r.finding.outcome !== 'compiler-crash' || r.files.length !== 1 || o.signal?.aborted)
    return { reduction: r, warnings: -1, seconds: 0 };
  const work = mkdtempSync(join(tmpdir(), 'kiln-crash-text-'));
  const temp = TempRoot.create();
  try {
    const file = r.files[0]!;
    const repro = join(work, 'repro.sh');
    writeFileSync(
      repro,
      reproScript({
        id: `${r.finding.id} (text)`,
        config: r.config,
        judgement: r.failing.judgement,
        expected: r.expected,
        limits: r.finding.limits,
        files: [file.name],
      }),
      { mode: 0o755 },
    );
    const accepting = await validityCompilersFor(
      o.validity?.compilers ?? (await detectCompilers()),
      programRequires(r.program),
    );
    const checker = new ValidityChecker(accepting);
    // The crash shows at compile time, so nothing in repro.sh keeps `main`; without it the case
    // no longer links on a compiler that does not crash, and the version line and every other
    // compiler call it rejected. The test keeps it: the case stays a whole program.
    const testScript = join(work, 'test.sh');
    writeFileSync(
      testScript,
      `#!/bin/sh\ngrep -Eq '(^|[^A-Za-z0-9_])main[[:space:]]*\\(' ${shq(file.name)} || exit 1\nexec ${shq(repro)}\n`,
      { mode: 0o755 },
    );
    const interesting = new InterestingnessTest(testScript, file.name, r.finding.limits.compile.timeoutMs * 2);
    const test = async (t: string): Promise<boolean> => (await interesting.run(t, o.signal)) === 'interesting';
    try {
      say(`reducing the IR-reduced program as text with its repro.sh (validity: ${checker.describe()})`);
      const tidy1 = accepting.length ? await tidyWarnings(file.content, checker, test, file.name) : undefined;
      const start = tidy1?.text ?? file.content;
      // Warning-free from here on when the tidied input is: every text the reduction keeps stays so.
      const strict = tidy1?.warnings === 0 ? checker.strictly() : checker;
      const input = join(work, file.name);
      writeFileSync(input, start);
      const reduced = await reduceFile({
        input,
        output: join(work, 'reduced.c'),
        test: testScript,
        validity: strict.compilers.length ? strict : false,
        jobs: o.jobs ?? 1,
        ...(o.maxTimeMs !== undefined ? { maxTimeMs: o.maxTimeMs } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
        onNote: (line) => say(line),
        // One line per pass of each round: a long text reduction shows it is moving.
        onEvent: (e) => {
          if (e.kind === 'pass') say(`text round ${e.round} ${e.pass}: ${e.lines} lines, ${e.bytes} bytes`);
        },
      });
      const tidy2 = accepting.length
        ? await tidyWarnings(reduced.result.text, checker, test, file.name)
        : { text: reduced.result.text, warnings: -1 };
      const files: EmittedFile[] = [{ name: file.name, content: tidy2.text }];
      const failing = await testConfiguration(files, r.expected, r.config, r.finding.limits, temp);
      if (failing.judgement.bucket !== r.failing.judgement.bucket) {
        say('the text-reduced program no longer shows the crash as its test did: the IR-reduced one is kept');
        return { reduction: r, warnings: -1, seconds: (Date.now() - started) / 1000 };
      }
      say(`text reduction: ${r.lines} → ${countLines(tidy2.text)} lines, ${tidy2.warnings} warnings left`);
      return {
        reduction: {
          ...r,
          files,
          source: tidy2.text,
          lines: countLines(tidy2.text),
          failing,
          ...(strict.compilers.length ? { validatedWith: strict.describe() } : {}),
        },
        text: reduced.result,
        warnings: tidy2.warnings,
        seconds: Math.round((Date.now() - started) / 100) / 10,
      };
    } finally {
      interesting.dispose();
    }
  } finally {
    temp.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}

function countLines(src: string): number {
  return src.split('\n').filter((l) => l.trim() !== '').length;
}
