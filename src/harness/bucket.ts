// Bucket keys: what makes two failures "the same bug" at campaign time. Triage (src/triage)
// refines wrong-code buckets later; the keys here are deliberately simple and stable.

/**
 * Bounds on the text examined. Every message a bucket is made of (GCC's ICE line, an LLVM
 * assertion or error, a stack-dump frame, the first error) starts a line and is at most a few
 * hundred characters; an LLVM assertion naming a templated function, the longest kind, stays
 * under 2 KiB. Past the caps a compiler is echoing program text or garbage: ignoring it bounds the
 * work per line and the length of a bucket key, whatever a hostile compiler prints.
 */
export const MAX_LINE_CHARS = 4096;
/**
 * The most diagnostic text examined (its first three quarters and last quarter): the harness keeps 256 KiB of a
 * compiler's stderr, the same way.
 */
export const MAX_TEXT_CHARS = 256 << 10;

// Every test below runs in time linear in the line's length: no pattern here may backtrack over
// an unbounded run (`.*x` or `[set]*x` retried from every start position is quadratic, and one
// 256 KiB line once took a minute of CPU).

/** Where an assertion message (`Assertion \`x' failed`) starts in a line, or -1. */
function assertionAt(line: string): number {
  const open = /Assertion [`']/.exec(line);
  if (!open) return -1;
  return /[`'] failed/.test(line.slice(open.index + open[0].length)) ? open.index : -1;
}

/** Where `signal terminated program` starts, extended back over the words before it (`Killed signal …`). */
function signalTerminatedAt(line: string): number {
  let i = line.indexOf('signal terminated program');
  if (i < 0) return -1;
  while (i > 0 && /[A-Za-z ]/.test(line[i - 1]!)) i--;
  return i;
}

/** Text that only a crashing compiler prints (GCC ICE, LLVM crash handler, driver reports), line by line. */
const CRASH_PATTERNS: readonly RegExp[] = [
  /internal compiler error/i,
  /PLEASE submit a bug report/,
  /^Stack dump:/m,
  /LLVM ERROR:/,
  /UNREACHABLE executed/,
  /clang frontend command failed (?:due to signal|with exit code (?:70|134|139))/,
  /unable to execute command: (?:Segmentation fault|Aborted|Illegal instruction|Bus error|Killed)/,
  /signal terminated program/,
  // Memory exhaustion under the campaign's limit: a compiler blow-up, not a refusal of the program.
  /virtual memory exhausted|out of memory allocating/,
];

/** The lines of diagnostic text, within the caps above, without trailing blanks. */
export function diagnosticLines(text: string): string[] {
  // Head and tail, as the harness keeps them (the decisive line of a long stderr comes last).
  const head =
    text.length > MAX_TEXT_CHARS
      ? `${text.slice(0, MAX_TEXT_CHARS * 0.75)}\n${text.slice(-MAX_TEXT_CHARS * 0.25)}`
      : text;
  return head.split('\n').map((l) => (l.length > MAX_LINE_CHARS ? l.slice(0, MAX_LINE_CHARS) : l).trimEnd());
}

/** Whether compiler diagnostics show a crash (as opposed to an ordinary error). */
export function looksLikeCrash(stderr: string): boolean {
  const lines = diagnosticLines(stderr);
  // The patterns match within a line, so they can scan the capped lines joined, once each.
  const capped = lines.join('\n');
  return (
    CRASH_PATTERNS.some((p) => p.test(capped)) ||
    (capped.includes('Assertion ') && lines.some((l) => assertionAt(l) >= 0))
  );
}

/** The salient part of a crash report: `raw` occurs verbatim in stderr, `key` is normalised. */
export interface CrashMessage {
  readonly raw: string;
  readonly key: string;
}

/**
 * Picks the line that names a crash (ICE line, assertion, LLVM error, last stack-dump pass) and
 * normalises it; the GCC "during … pass" line is kept as context when present.
 */
export function crashMessage(stderr: string): CrashMessage {
  const lines = diagnosticLines(stderr);
  const during = lines.find((l) => /^during [A-Z]+ pass:/.test(l.trim()));
  // The first line where `at` finds the message, from where the message starts.
  const pick = (at: (line: string) => number): string | undefined => {
    for (const l of lines) {
      const i = at(l);
      if (i >= 0) return l.slice(i).trim();
    }
    return undefined;
  };
  const index = (re: RegExp) => (l: string) => re.exec(l)?.index ?? -1;
  const raw =
    pick(index(/internal compiler error/i)) ??
    pick((l) => (assertionAt(l) >= 0 ? l.indexOf('Assertion ') : -1)) ??
    pick(index(/LLVM ERROR:/)) ??
    pick(index(/UNREACHABLE executed/)) ??
    pick(signalTerminatedAt) ??
    pick((l) =>
      /virtual memory exhausted|out of memory allocating/.test(l)
        ? index(/virtual memory exhausted|out of memory/)(l)
        : -1,
    ) ??
    pick(index(/unable to execute command:/)) ??
    lastStackDumpFrame(lines) ??
    pick(index(/PLEASE submit a bug report/)) ??
    'crash without a message';
  // Sizes in an out-of-memory message vary from program to program; the bug is the blow-up.
  const oom = /virtual memory exhausted|out of memory/.exec(raw);
  if (oom) return { raw: oom[0], key: 'out of memory' };
  const key = normaliseMessage(raw);
  return { raw, key: during ? `${normaliseDuringPass(during)} | ${key}` : key };
}

function lastStackDumpFrame(lines: readonly string[]): string | undefined {
  const start = lines.findIndex((l) => l.startsWith('Stack dump:'));
  if (start < 0) return undefined;
  let last: string | undefined;
  for (const l of lines.slice(start + 1)) {
    const m = /^\d+\.\s+(.*)$/.exec(l.trim());
    if (!m) break;
    if (!/^Program arguments:/.test(m[1]!)) last = m[1]!;
  }
  return last;
}

/** The first error a compiler printed when it rejected a program (raw text and normalised key). */
export function errorMessage(stderr: string): CrashMessage {
  const lines = diagnosticLines(stderr);
  const at = lines.findIndex((l) => /\berror\b/i.test(l));
  // The driver's `collect2: error: ld returned 1 exit status` follows the linker's own messages,
  // which name the cause ("relocation truncated to fit: R_RISCV_JAL …"): the last of them is the key.
  const linker =
    at >= 0 && /^collect2: error: ld returned/.test(lines[at]!.trim())
      ? lines
          .slice(0, at)
          .reverse()
          .find((l) => /^\S.*: /.test(l) && !/^\[\.\.\. /.test(l))
      : undefined;
  if (linker) {
    // `prog.c:(.text+0x1ad172): relocation truncated to fit: R_RISCV_JAL against `.L203'`: the
    // section offset and the symbol change as the program shrinks; the message is the bug.
    const raw = linker
      .trim()
      .replace(/^\S*\(\.[^)]*\): /, '')
      .replace(/ against .*$/, '');
    return { raw, key: normaliseMessage(raw) };
  }
  const err = at >= 0 ? lines[at]! : (lines.find((l) => l.trim().length > 0) ?? 'no diagnostic');
  const m = /\berror\b:?/i.exec(err);
  const raw = (m ? err.slice(m.index) : err).trim();
  return { raw, key: normaliseMessage(raw) };
}

/**
 * Normalises a compiler message so that one bug gives one key across programs and machines:
 * paths become base names, temporary file names, line:column numbers, addresses and long hex
 * runs are dropped, identifiers of the generated program (`func_3`, `g_12`) lose their numbers.
 */
export function normaliseMessage(text: string): string {
  return (
    (text.length > MAX_LINE_CHARS ? text.slice(0, MAX_LINE_CHARS) : text)
      // Paths → base names (`/build/gcc/tree.cc` → `tree.cc`).
      .replace(/[\w.+~/-]+/g, baseName)
      // Temporary files: gcc's ccXXXXXX.s, clang's prog-3f2a1b.c, Kiln's own folders.
      .replace(/\bcc[A-Za-z0-9]{6}\.\w+/g, '<tmp>')
      .replace(/\b([\w]+)-[0-9a-f]{6,}\.(\w+)/g, '$1-<tmp>.$2')
      .replace(/\bkiln-fuzz-\d+-\w+/g, '<tmp>')
      // Addresses and long hex runs.
      .replace(/0x[0-9a-fA-F]+/g, '0x')
      .replace(/\b[0-9a-fA-F]{8,}\b/g, '')
      // Source locations: file:line:col and "line N".
      .replace(/:\d+(?::\d+)?/g, '')
      .replace(/\bline \d+/g, 'line')
      // Names of the generated program (func_3, g_12, l_7, U0, S1).
      .replace(/\b(func|g|l|p|U|S)_?\d+\b/g, '$1_')
      .replace(/'@[^']*'/g, "'@'")
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/**
 * A run of path characters without its folders: `a/b/c.cc` → `c.cc`, `/usr/lib/` → `lib/`. Scans
 * once, where the equivalent single regex (`(?:[\w.+~-]*\/)+([\w.+~-]+)`) retried its leading
 * run from every position of a long word and took quadratic time.
 */
function baseName(run: string): string {
  let end = run.length;
  while (end > 0 && run[end - 1] === '/') end--;
  const slash = end > 0 ? run.lastIndexOf('/', end - 1) : -1;
  return slash < 0 ? run : run.slice(slash + 1);
}

/** `during GIMPLE pass: vrp2` → `during GIMPLE pass: vrp` (pass instance numbers vary). */
function normaliseDuringPass(line: string): string {
  return normaliseMessage(line.trim().replace(/\d+/g, ''));
}
