// Bucket keys under hostile compiler output. One 256 KiB diagnostic line used to cost a minute of
// CPU (the path-stripping regex retried a long word from every position). The normalisations
// must be linear and look at a bounded amount of text; the results must stay what they were.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  crashMessage,
  errorMessage,
  looksLikeCrash,
  MAX_LINE_CHARS,
  MAX_TEXT_CHARS,
  normaliseMessage,
} from '../../src/harness/bucket.js';
import type { Compiler } from '../../src/harness/compilers.js';
import { buildMatrix } from '../../src/harness/matrix.js';
import { judgeCompile } from '../../src/harness/oracle.js';

const KIB_256 = 256 * 1024;
// Before the fix each case below took from one to several minutes; the default test timeout is
// two. These timeouts only stop a regression from stalling the suite: the assertions are on results.
const HOSTILE = { timeout: 20_000 };

/** A line of `unit` repeated to 256 KiB. */
const long = (unit: string): string => unit.repeat(Math.ceil(KIB_256 / unit.length)).slice(0, KIB_256);

/**
 * Shapes that made a backtracking pattern retry a long run from every start: long words, paths
 * without a last segment, separators, half-matches of each crash pattern.
 */
const SHAPES = [
  'x',
  'a',
  '/',
  '-',
  ' ',
  'src/',
  'x-',
  ':1',
  "'@",
  'g_1',
  '0x',
  'Assertion `',
  'a1',
  'line ',
  'error ',
  '1. ',
];

describe('normalisation of hostile diagnostics', () => {
  it('looks at most MAX_LINE_CHARS of a message: a 256 KiB line gives the key of its head', HOSTILE, () => {
    for (const unit of SHAPES) {
      const text = long(unit);
      const key = normaliseMessage(text);
      expect(key, unit).toBe(normaliseMessage(text.slice(0, MAX_LINE_CHARS)));
      expect(key.length, unit).toBeLessThanOrEqual(MAX_LINE_CHARS);
    }
    expect(normaliseMessage(long('x'))).toBe('x'.repeat(MAX_LINE_CHARS));
    // 1,024 folders fill the cap; the file name after them is past it.
    expect(normaliseMessage(`${long('src/')}tree.cc`)).toBe('src/');
    expect(normaliseMessage(`/build/gcc/tree.cc:12: ${long('-')}`)).toBe(
      `tree.cc: ${'-'.repeat(MAX_LINE_CHARS - '/build/gcc/tree.cc:12: '.length)}`,
    );
  });

  it('finds the crash in a 128 KiB ICE line and keys it by the message, not the tail', HOSTILE, () => {
    // Half the harness's 256 KiB of stderr, so that the "during" line after it is kept.
    const stderr =
      `prog.c: In function 'func_1':\n/tmp/x/prog.c:4:7: internal compiler error: in expand_expr_real_1, at ` +
      `expr.cc:1234 ${'x'.repeat(KIB_256 / 2)}\nduring RTL pass: expand\n`;
    expect(looksLikeCrash(stderr)).toBe(true);
    const m = crashMessage(stderr);
    expect(stderr).toContain(m.raw);
    expect(
      m.key.startsWith('during RTL pass: expand | internal compiler error: in expand_expr_real_1, at expr.cc x'),
    ).toBe(true);
    expect(m.key.length).toBeLessThanOrEqual(2 * MAX_LINE_CHARS);
    const c = buildMatrix(
      [{ name: 'gcc', command: 'gcc', realPath: '/usr/bin/gcc', family: 'gcc', version: 'gcc' } satisfies Compiler],
      ['-O2'],
    )[0]!;
    const j = judgeCompile(
      { status: 1, signal: null, stdout: '', stderr, timedOut: false, aborted: false, truncated: false, durationMs: 1 },
      c,
      false,
    );
    expect(j?.outcome).toBe('compiler-crash');
    expect(j?.bucket?.length ?? Infinity).toBeLessThan(2 * MAX_LINE_CHARS);
  });

  it('does not mistake half-matches of crash patterns for crashes, on long lines and many lines', HOSTILE, () => {
    for (const unit of [
      'Assertion `',
      "Assertion '",
      'a',
      'a ',
      'LLVM ERROR',
      'Stack dump',
      'clang frontend command failed ',
    ]) {
      expect(looksLikeCrash(long(unit)), unit).toBe(false);
      expect(looksLikeCrash(long(`${unit}\n`)), unit).toBe(false);
      expect(errorMessage(long(unit)).key.length, unit).toBeLessThanOrEqual(MAX_LINE_CHARS);
    }
    // A letter run before `signal terminated program` was walked from every start.
    const killed = `${'a'.repeat(4000)} signal terminated program cc1`;
    expect(crashMessage(killed).raw).toBe(killed);
    expect(crashMessage(`${long('a')}1signal terminated program`).raw).toBe('crash without a message');
    // An assertion whose closing quote is within the line is found, however many openings precede it.
    expect(crashMessage(`${'Assertion `'.repeat(300)}x' failed.`).key).toBe(
      `${'Assertion `'.repeat(300)}x' failed.`.replace(/\s+/g, ' '),
    );
  });

  it('reads the head and tail of MAX_TEXT_CHARS (as kept by the harness) and MAX_LINE_CHARS of a line', HOSTILE, () => {
    // The middle of a longer text is left out; its end is read (a crash report ends stderr).
    expect(
      looksLikeCrash(`${'\n'.repeat(MAX_TEXT_CHARS)}internal compiler error: in f${'\n'.repeat(MAX_TEXT_CHARS)}`),
    ).toBe(false);
    expect(looksLikeCrash(`${'\n'.repeat(MAX_TEXT_CHARS)}internal compiler error: in f`)).toBe(true);
    expect(looksLikeCrash(`${'x'.repeat(MAX_LINE_CHARS)}internal compiler error: in f`)).toBe(false);
    expect(looksLikeCrash(`${'x'.repeat(MAX_LINE_CHARS - 40)}internal compiler error: in f`)).toBe(true);
  });
});

describe('the message of a rejected program', () => {
  const judge = (stderr: string) => {
    const c = buildMatrix(
      [
        {
          name: 'riscv64-linux-gnu-gcc-12',
          command: 'riscv64-linux-gnu-gcc-12',
          realPath: '/usr/bin/riscv64-linux-gnu-gcc-12',
          family: 'gcc',
          version: 'gcc',
        } satisfies Compiler,
      ],
      ['-O0'],
    )[0]!;
    return judgeCompile(
      { status: 1, signal: null, stdout: '', stderr, timedOut: false, aborted: false, truncated: true, durationMs: 1 },
      c,
      false,
    );
  };

  it("is the linker's cause, not collect2's summary, and not the warnings before it", () => {
    // Megabytes of -Woverflow warnings, then a jump out of JAL's range in a 1.7 MB function.
    const warnings = (
      "prog.c:53:84: warning: overflow in conversion from 'int' to 'signed char:7' changes value from " +
      "'-105' to '23' [-Woverflow]\n"
    ).repeat(4000);
    const stderr =
      `${warnings}/tmp/ccOgqlUz.o: in function \`.L0 ':\nprog.c:(.text+0x1ad172): relocation truncated to ` +
      `fit: R_RISCV_JAL against \`.L203'\ncollect2: error: ld returned 1 exit status\n`;
    const j = judge(stderr);
    expect(j?.outcome).toBe('rejected-valid');
    expect(j?.detail).toBe('relocation truncated to fit: R_RISCV_JAL');
    expect(j?.bucket).toBe('rejected-valid:riscv64-linux-gnu-gcc-12:relocation truncated to fit: R_RISCV_JAL');
    // The same bug at another offset, against another label, is the same bucket.
    expect(judge(stderr.replace('0x1ad172', '0x100020').replace('.L203', '.L9'))?.bucket).toBe(j?.bucket);
    // An undefined reference keeps its symbol: that is the message.
    expect(
      judge(
        "/usr/bin/ld: /tmp/ccX.o: in function `main':\nprog.c:(.text+0x12): undefined reference to `foo'\n" +
          'collect2: error: ld returned 1 exit status\n',
      )?.detail,
    ).toBe("undefined reference to `foo'");
  });

  it('is the first error of a compiler that rejects the source', () => {
    expect(
      judge(
        "prog.c: In function 'f':\nprog.c:3:5: warning: unused variable 'x'\n" +
          "prog.c:4:1: error: expected ';' before '}' token\nprog.c:9:1: error: second\n",
      )?.detail,
    ).toBe("error: expected ';' before '}' token");
  });
});

// The previous implementation, kept as the specification of what a key is on ordinary input.
function oldNormalise(text: string): string {
  return text
    .replace(/(?:[\w.+~-]*\/)+([\w.+~-]+)/g, '$1')
    .replace(/\bcc[A-Za-z0-9]{6}\.\w+/g, '<tmp>')
    .replace(/\b([\w]+)-[0-9a-f]{6,}\.(\w+)/g, '$1-<tmp>.$2')
    .replace(/\bkiln-fuzz-\d+-\w+/g, '<tmp>')
    .replace(/0x[0-9a-fA-F]+/g, '0x')
    .replace(/\b[0-9a-fA-F]{8,}\b/g, '')
    .replace(/:\d+(?::\d+)?/g, '')
    .replace(/\bline \d+/g, 'line')
    .replace(/\b(func|g|l|p|U|S)_?\d+\b/g, '$1_')
    .replace(/'@[^']*'/g, "'@'")
    .replace(/\s+/g, ' ')
    .trim();
}

const OLD_CRASH: readonly RegExp[] = [
  /internal compiler error/i,
  /PLEASE submit a bug report/,
  /^Stack dump:/m,
  /LLVM ERROR:/,
  /UNREACHABLE executed/,
  /Assertion [`'].*[`'] failed/,
  /clang frontend command failed (?:due to signal|with exit code (?:70|134|139))/,
  /unable to execute command: (?:Segmentation fault|Aborted|Illegal instruction|Bus error|Killed)/,
  /signal terminated program/,
  /virtual memory exhausted|out of memory allocating/,
];

/** Short texts built from the pieces every pattern reacts to. */
const fragments = fc
  .array(
    fc.constantFrom(
      'a',
      'b/',
      '/',
      '//',
      '.',
      '-',
      '+',
      '~',
      ' ',
      '\t',
      ':',
      ':12',
      ':3:4',
      "'",
      '`',
      "'@x'",
      '0x1f',
      'deadbeef12',
      'cc1AbC2x.s',
      'prog-3f2a1b.c',
      'kiln-fuzz-12-ab',
      'line 7',
      'func_3',
      'g_12',
      'U0',
      'S1',
      'Assertion `',
      "' failed",
      'Killed ',
      'signal terminated program',
      'error',
      ' error: ',
      'internal compiler error: in f, at t.cc:3',
      'LLVM ERROR: x',
      'Stack dump:',
      '\n',
      '\n1.\tRunning pass',
      'UNREACHABLE executed',
      'out of memory allocating 8',
    ),
    { maxLength: 14 },
  )
  .map((xs) => xs.join(''));

describe('the linear normalisation keeps the keys of ordinary messages', () => {
  it('normaliseMessage equals the previous regex chain on short text', () => {
    fc.assert(
      fc.property(fragments, (s) => normaliseMessage(s) === oldNormalise(s)),
      { seed: 18, numRuns: 3000 },
    );
  });

  it('looksLikeCrash equals the previous patterns on short text', () => {
    fc.assert(
      fc.property(fragments, (s) => looksLikeCrash(s) === OLD_CRASH.some((p) => p.test(s))),
      { seed: 18, numRuns: 3000 },
    );
  });

  it('crash messages still occur verbatim in the diagnostics', () => {
    fc.assert(
      fc.property(fragments, (s) => {
        const m = crashMessage(s);
        return m.raw === 'crash without a message' || m.raw === 'out of memory' || s.includes(m.raw);
      }),
      { seed: 18, numRuns: 2000 },
    );
  });
});
