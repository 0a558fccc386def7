// Bucket keys: what makes two failures "the same bug" at campaign time. Triage (src/triage)
// refines wrong-code buckets later; the keys here are deliberately simple and stable.

/** Text that only a crashing compiler prints (GCC ICE, LLVM crash handler, driver reports). */
const CRASH_PATTERNS: readonly RegExp[] = [
  /internal compiler error/i,
  /PLEASE submit a bug report/,
  /^Stack dump:/m,
  /LLVM ERROR:/,
  /UNREACHABLE executed/,
  /Assertion [`'].*[`'] failed/,
  /clang frontend command failed (?:due to signal|with exit code (?:70|134|139))/,
  /unable to execute command: (?:Segmentation fault|Aborted|Illegal instruction|Bus error|Killed)/,
  /signal terminated program/,
  // Memory exhaustion under the campaign's limit: a compiler blow-up, not a refusal of the program.
  /virtual memory exhausted|out of memory allocating/,
];

/** Whether compiler diagnostics show a crash (as opposed to an ordinary error). */
export function looksLikeCrash(stderr: string): boolean {
  return CRASH_PATTERNS.some((p) => p.test(stderr));
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
  const lines = stderr.split('\n').map((l) => l.trimEnd());
  const during = lines.find((l) => /^during [A-Z]+ pass:/.test(l.trim()));
  const pick = (re: RegExp, from?: RegExp): string | undefined => {
    const l = lines.find((x) => re.test(x));
    if (l === undefined) return undefined;
    if (!from) return l.trim();
    const m = from.exec(l);
    return (m ? l.slice(m.index) : l).trim();
  };
  const raw =
    pick(/internal compiler error/i, /internal compiler error/i) ??
    pick(/Assertion [`'].*[`'] failed/, /Assertion /) ??
    pick(/LLVM ERROR:/, /LLVM ERROR:/) ??
    pick(/UNREACHABLE executed/, /UNREACHABLE executed/) ??
    pick(/signal terminated program/, /[A-Za-z ]*signal terminated program/) ??
    pick(/virtual memory exhausted|out of memory allocating/, /virtual memory exhausted|out of memory/) ??
    pick(/unable to execute command:/, /unable to execute command:/) ??
    lastStackDumpFrame(lines) ??
    pick(/PLEASE submit a bug report/, /PLEASE submit a bug report/) ??
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
  const lines = stderr.split('\n').map((l) => l.trimEnd());
  const err = lines.find((l) => /\berror\b/i.test(l)) ?? lines.find((l) => l.trim().length > 0) ?? 'no diagnostic';
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
    text
      // Paths → base names (`/build/gcc/tree.cc` → `tree.cc`).
      .replace(/(?:[\w.+~-]*\/)+([\w.+~-]+)/g, '$1')
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

/** `during GIMPLE pass: vrp2` → `during GIMPLE pass: vrp` (pass instance numbers vary). */
function normaliseDuringPass(line: string): string {
  return normaliseMessage(line.trim().replace(/\d+/g, ''));
}
