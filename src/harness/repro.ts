import { constants } from 'node:os';
import { compileCommand, EXE_FILE, instrumentedConfiguration, runArgv, SOURCE_FILE } from './execute.js';
import { configEmulator, configTarget, limitsFor, type Configuration, type Limits } from './matrix.js';
import {
  GCDA_STORED_SUFFIX,
  PROFDATA_FILE,
  profdataTool,
  profileFamily,
  PROFRAW_FILE,
  type ProfileResult,
} from './profile.js';
import { noRandomizeShell, runDirShell, sandboxShell, sq, tagShell } from './sandbox.js';
import { RUN_SIDE_OUTCOMES, type Judgement } from './oracle.js';
import { signatureShell } from './signature.js';

/** What a repro script needs to know about a finding. */
export interface ReproInput {
  readonly id: string;
  readonly config: Configuration;
  readonly judgement: Judgement;
  /**
   * Other failing behaviours the finding showed (a nondeterministic finding): the script exits 0
   * when any of them, or `judgement`, shows.
   */
  readonly alternatives?: readonly Judgement[];
  readonly expected: string;
  readonly limits: Limits;
  /** The program's files, in compile order (default: the one file `prog.c`). */
  readonly files?: readonly string[];
  /**
   * A profile configuration's profile (the test's {@link ConfigResult.profile}): which build
   * failed, and a perturbed profile's files, which the finding folder stores next to the program.
   */
  readonly profile?: ProfileResult;
}

/**
 * Writes `repro.sh`: it compiles `prog.c` with the exact command, limits and sandbox of the
 * campaign (sandbox.ts renders both), runs the binary as the campaign did, and exits 0 when the
 * failure shows again and 1 when it does not — a C-Reduce/C-Vise interestingness test. It uses
 * `./prog.c` when the current folder has one (C-Reduce runs tests in a folder holding the
 * candidate), else the `prog.c` next to the script. A program of several files is handled file by
 * file the same way (C-Reduce may give the test only the files it is reducing): each comes from
 * the current folder when it is there, else from next to the script. Every user-controlled string
 * in the comment header is escaped (a newline in a compiler path must not start a command).
 */
export function reproScript(f: ReproInput): string {
  // A failure of a profile configuration's instrumented build is that build's own: an ordinary script.
  if (f.config.profile && f.profile?.stage === 'instrumented') {
    const { profile: _, ...rest } = f;
    return reproScript({ ...rest, config: instrumentedConfiguration(f.config) });
  }
  const { config: c, judgement: j } = f;
  const files = f.files ?? [SOURCE_FILE];
  const stored = c.profile === 'perturbed' ? f.profile?.files : undefined;
  if (c.profile === 'perturbed' && !stored?.length)
    throw new Error('reproScript: a perturbed profile configuration needs its profile files');
  const compile = limitsFor(f.limits.compile, c);
  const run = limitsFor(f.limits.run, c, 'run');
  const accepted = [j, ...(f.alternatives ?? [])];
  const nondeterministic = accepted.length > 1;
  const header = [
    `# Kiln finding ${comment(f.id)}: ${j.outcome} ` +
      `with ${comment(c.compiler.name)}${c.optionsText ? ` ${comment(c.optionsText)}` : ''}`,
    `# compiler: ${comment(c.compiler.version)}`,
    ...(configEmulator(c)
      ? [`# target: ${comment(configTarget(c).name)}; the binary runs under ${comment(configEmulator(c)!.join(' '))}`]
      : []),
    ...(j.detail ? [`# observed: ${comment(j.detail)}`] : []),
    ...(j.signature?.length
      ? [`# crash signature (in this order in the compiler's output): ${comment(j.signature.join(' | '))}`]
      : []),
    ...(nondeterministic
      ? [
          `# nondeterministic: it showed ` +
            `${accepted.map((x) => comment(x.detail ?? x.outcome)).join(' | ')}; any of them counts`,
        ]
      : []),
    '# Exits 0 when the failure reproduces, 1 when it does not (C-Reduce/C-Vise interestingness test).',
    '# Compiler and binary run as in the campaign: under timeout, setarch -R, prlimit and env -i.',
  ];
  const compileShell = sandboxShell(
    { kind: 'compile', timeoutMs: compile.timeoutMs, memoryMb: compile.memoryMb, tag: '', tmpdir: '' },
    compileCommand(c, files),
  );
  const lines = [
    ...reproPrelude(header, [...files, ...(stored ?? []).map((p) => p.name)]),
    `EXPECTED=${sq(f.expected)}`,
    "# KILN_EXPECTED, when set, replaces it (a text reduction sets it to a reference build's output).",
    'if [ -n "${KILN_EXPECTED+set}" ]; then EXPECTED=$KILN_EXPECTED; fi',
    ...(c.profile
      ? profileShell(
          f,
          files,
          stored?.map((p) => p.name),
        )
      : []),
    `${compileShell} >compile.log 2>&1`,
    'cstatus=$?',
  ];
  const hung = (v: string): string => `{ [ "${v}" -eq 124 ] || [ "${v}" -eq 137 ]; }`;
  for (const a of accepted) lines.push(...compileCheck(a, hung));
  if (accepted.some((a) => RUN_SIDE_OUTCOMES.has(a.outcome))) {
    const runLimits = { kind: 'run', timeoutMs: run.timeoutMs, memoryMb: run.memoryMb, tag: '' } as const;
    lines.push(
      '[ "$cstatus" -eq 0 ] || exit 1',
      ...runDirShell(),
      `mkdir "$RUN" && mv ${EXE_FILE} "$RUN/${EXE_FILE}" && cd "$RUN" || exit 2`,
      ...signalShell(),
      `sigof run.sig ${sandboxShell(runLimits, runArgv(c))} >run.out 2>run.err`,
      'rstatus=$?',
      'rsig=$(cat run.sig 2>/dev/null)',
    );
    // A run's hang: the limit's SIGKILL (timeout -s KILL kills itself too), not an exit with 137.
    const runHung = (v: string): string =>
      `{ [ "${v}" -eq 124 ] || { [ "${v}" -eq 137 ] && [ "\${rsig:-9}" = 9 ]; }; }`;
    for (const a of accepted) lines.push(...runCheck(a, runHung));
  }
  lines.push('exit 1');
  return `${lines.join('\n')}\n`;
}

/**
 * The lines of repro.sh that leave a profile configuration's profile where its compile reads it.
 * The true profile: the instrumented build compiled, run (as the campaign ran it: same sandbox
 * and limits, its own run folder) and, for clang, merged by llvm-profdata. A perturbed profile:
 * the stored one, from the finding folder (gcc's .gcda base64-decoded, clang's text form merged).
 */
function profileShell(f: ReproInput, files: readonly string[], stored: readonly string[] | undefined): string[] {
  const c = f.config;
  const compile = limitsFor(f.limits.compile, c);
  const run = limitsFor(f.limits.run, c, 'run');
  const step = {
    kind: 'compile',
    timeoutMs: compile.timeoutMs,
    memoryMb: compile.memoryMb,
    tag: '',
    tmpdir: '',
  } as const;
  const clang = profileFamily(c.compiler) === 'clang';
  const tool = clang ? (profdataTool(c.compiler) ?? 'llvm-profdata') : undefined;
  const merge = (input: string): string =>
    `${sandboxShell(step, [tool!, 'merge', '-o', PROFDATA_FILE, input])} >profdata.log 2>&1 || exit 1`;
  if (stored) {
    return [
      '# The perturbed profile the campaign gave the compiler, stored next to the program.',
      ...(clang
        ? [merge(stored[0]!)]
        : stored.map((n) => `base64 -d ${n} >${n.slice(0, -GCDA_STORED_SUFFIX.length)} || exit 2`)),
    ];
  }
  const ic = instrumentedConfiguration(c);
  const runLimits = { kind: 'run', timeoutMs: run.timeoutMs, memoryMb: run.memoryMb, tag: '' } as const;
  return [
    `# The profile: the instrumented build (${comment(ic.optionsText)}), run once as the campaign ran it.`,
    `${sandboxShell(step, compileCommand(ic, files))} >instrumented.log 2>&1 || exit 1`,
    ...runDirShell(),
    `mkdir "$RUN" && mv ${EXE_FILE} "$RUN/${EXE_FILE}" || exit 2`,
    `(cd "$RUN" && ${sandboxShell(runLimits, runArgv(ic))} >instrumented.out 2>instrumented.err) || exit 1`,
    ...(clang ? [`mv "$RUN/${PROFRAW_FILE}" . || exit 1`, merge(PROFRAW_FILE)] : []),
    'rm -rf "$RUN"',
  ];
}

/**
 * The start of every `repro.sh`: the comment header, `set -u`, the sandbox's tag and address
 * randomisation, and the program's files copied into a fresh work folder, which an EXIT trap
 * removes (an INT or TERM exits 2 through it, so an interrupted reduction leaves nothing behind).
 */
export function reproPrelude(header: readonly string[], files: readonly string[] = [SOURCE_FILE]): string[] {
  const single = files.length === 1 && files[0] === SOURCE_FILE;
  return ['#!/bin/sh', ...header, 'set -u', tagShell(), noRandomizeShell(), ...(single ? copyOne() : copyEach(files))];
}

/** A user-controlled string made safe for a `#` comment line: control characters escaped. */
function comment(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes
  return s.replace(/[\x00-\x1f\x7f\u2028\u2029]/g, (ch) =>
    ch === '\n' ? '\\n' : `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** Copies `prog.c` (from the current folder, else next to the script) into a fresh work folder. */
function copyOne(): string[] {
  return [
    `if [ -f ${SOURCE_FILE} ]; then SRC="$PWD/${SOURCE_FILE}"; ` +
      `else SRC="$(cd "$(dirname "$0")" && pwd)/${SOURCE_FILE}"; fi`,
    'WORK=$(mktemp -d "${TMPDIR:-/tmp}/kiln-repro.XXXXXX") || exit 2',
    `trap 'rm -rf "$WORK"' EXIT`,
    `trap 'exit 2' INT TERM`,
    `cp "$SRC" "$WORK/${SOURCE_FILE}" && cd "$WORK" || exit 2`,
  ];
}

/** Copies each file (from the current folder when there, else from next to the script) into a fresh work folder. */
function copyEach(files: readonly string[]): string[] {
  for (const f of files) if (!/^[A-Za-z0-9_.-]+$/.test(f)) throw new Error(`reproScript: unsafe file name ${f}`);
  return [
    'HERE="$(cd "$(dirname "$0")" && pwd)"',
    'WORK=$(mktemp -d "${TMPDIR:-/tmp}/kiln-repro.XXXXXX") || exit 2',
    `trap 'rm -rf "$WORK"' EXIT`,
    `trap 'exit 2' INT TERM`,
    `for f in ${files.join(' ')}; do`,
    '  if [ -f "$f" ]; then cp "$f" "$WORK/$f"; else cp "$HERE/$f" "$WORK/$f"; fi || exit 2',
    'done',
    'cd "$WORK" || exit 2',
  ];
}

/** Lines that exit 0 when the compile showed this failure (nothing for run-time failures). */
function compileCheck(j: Judgement, hung: (v: string) => string): string[] {
  switch (j.outcome) {
    case 'compiler-hang':
      return [`if ${hung('$cstatus')}; then exit 0; fi`];
    case 'compiler-crash':
      // The crash report's own signature: another crash of the same compiler is another bug.
      if (j.signature?.length)
        return [`if [ "$cstatus" -ne 0 ] && ${signatureShell(j.signature, 'compile.log')}; then exit 0; fi`];
      if (j.signal) return [`if [ "$cstatus" -eq ${128 + signalNumber(j.signal)} ]; then exit 0; fi`];
      return [
        `if [ "$cstatus" -ne 0 ] && grep -qF -- ${sq(j.match ?? 'internal compiler error')} compile.log; ` +
          `then exit 0; fi`,
      ];
    case 'rejected-valid':
      return [
        `if [ "$cstatus" -ne 0 ] && ! ${hung('$cstatus')} && [ "$cstatus" -le 128 ] && ! grep -qE 'internal ` +
          `compiler error|PLEASE submit a bug report|Stack dump:' ` +
          `compile.log${j.match ? ` && grep -qF -- ${sq(j.match)} compile.log` : ''}; then exit 0; fi`,
      ];
    case 'wrong-code':
    case 'binary-crash':
    case 'binary-hang':
      return [];
    default:
      throw new Error(`no repro check for outcome ${j.outcome}`);
  }
}

/** Lines that exit 0 when the binary's run showed this failure (nothing for compile-time failures). */
function runCheck(j: Judgement, hung: (v: string) => string): string[] {
  switch (j.outcome) {
    case 'binary-hang':
      return [`if ${hung('$rstatus')}; then exit 0; fi`];
    case 'binary-crash': {
      // rsig (see signalShell) tells a death by the signal from an exit with status 128+N.
      if (j.signal)
        return [
          `if [ "$rstatus" -eq ${128 + signalNumber(j.signal)} ] && [ "\${rsig:-${signalNumber(j.signal)}}" ` +
            `= ${signalNumber(j.signal)} ]; then exit 0; fi`,
        ];
      return [`if [ "$rstatus" -eq ${j.exitStatus ?? 1} ] && [ "\${rsig:-0}" = 0 ]; then exit 0; fi`];
    }
    case 'wrong-code':
      return ['if [ "$rstatus" -eq 0 ] && [ "$(cat run.out)" != "$EXPECTED" ]; then exit 0; fi'];
    default:
      return [];
  }
}

/**
 * `sigof FILE CMD…` runs CMD and writes to FILE the number of the signal that ended it (0 for an
 * exit). sh gives a death by signal N and an exit with status 128+N the same `$?` (a reduction
 * drifted from a SIGFPE to `main` returning 136 this way); perl, where present, tells them apart.
 * Without perl nothing is written and a status of 128+N counts as the signal.
 */
function signalShell(): string[] {
  return [
    '# sigof FILE CMD...: runs CMD; FILE gets the number of the signal that ended it, 0 for an exit',
    '# (sh alone cannot tell a death by signal N from an exit with status 128+N).',
    `sigof() { f=$1; shift; if command -v perl >/dev/null 2>&1; then ` +
      `perl -e 'my $f = shift @ARGV; system { $ARGV[0] } @ARGV; my $s = $?; ` +
      String.raw`if (open(my $h, ">", $f)) { print $h ($s == -1 ? "" : ($s & 127)), "\n"; } ` +
      `exit($s == -1 ? 127 : ($s & 127) ? 128 + ($s & 127) : ($s >> 8));' "$f" "$@"; else "$@"; fi; }`,
  ];
}

function signalNumber(sig: NodeJS.Signals): number {
  const n = (constants.signals as Record<string, number>)[sig];
  if (n === undefined) throw new Error(`unknown signal ${sig}`);
  return n;
}
