import { constants } from 'node:os';
import { compileCommand, EXE_FILE, SOURCE_FILE } from './execute.js';
import { limitsFor, type Configuration, type Limits, type StepLimits } from './matrix.js';
import type { Judgement } from './oracle.js';

/** What a repro script needs to know about a finding. */
export interface ReproInput {
  readonly id: string;
  readonly config: Configuration;
  readonly judgement: Judgement;
  readonly expected: string;
  readonly limits: Limits;
  /** The program's files, in compile order (default: the one file `prog.c`). */
  readonly files?: readonly string[];
}

/**
 * Writes `repro.sh`: it compiles `prog.c` with the exact command and limits of the campaign, runs
 * the binary, and exits 0 when the failure shows again and 1 when it does not — a C-Reduce/C-Vise
 * interestingness test. It uses `./prog.c` when the current folder has one (C-Reduce runs tests
 * in a folder holding the candidate), else the `prog.c` next to the script. A program of several
 * files is handled file by file the same way (C-Reduce may give the test only the files it is
 * reducing): each comes from the current folder when it is there, else from next to the script.
 */
export function reproScript(f: ReproInput): string {
  const { config: c, judgement: j } = f;
  const files = f.files ?? [SOURCE_FILE];
  const single = files.length === 1 && files[0] === SOURCE_FILE;
  const compile = limitsFor(f.limits.compile, c);
  const run = limitsFor(f.limits.run, c);
  const lines = [
    '#!/bin/sh',
    `# Kiln finding ${f.id}: ${j.outcome} with ${c.compiler.name}${c.optionsText ? ' ' + c.optionsText : ''}`,
    `# compiler: ${c.compiler.version}`,
    ...(j.detail ? [`# observed: ${j.detail.replace(/\n/g, ' ')}`] : []),
    '# Exits 0 when the failure reproduces, 1 when it does not (C-Reduce/C-Vise interestingness test).',
    'set -u',
    ...(single ? copyOne() : copyEach(files)),
    'export LC_ALL=C LANG=C TMPDIR="$WORK"',
    `EXPECTED=${sq(f.expected)}`,
    '# Run a command with a wall-clock limit (status 124, or 137 when it had to be killed) and an address-space limit.',
    'limited() {',
    '  secs=$1; bytes=$2; shift 2',
    '  if [ "$bytes" != 0 ] && command -v prlimit >/dev/null 2>&1; then',
    '    timeout -k 2 "$secs" prlimit --as="$bytes" -- "$@"',
    '  else',
    '    timeout -k 2 "$secs" "$@"',
    '  fi',
    '}',
    `limited ${seconds(compile)} ${bytes(compile)} ${compileCommand(c, files).map(sq).join(' ')} >compile.log 2>&1`,
    'cstatus=$?',
  ];
  const hung = (v: string): string => `[ "${v}" -eq 124 ] || [ "${v}" -eq 137 ]`;
  switch (j.outcome) {
    case 'compiler-hang':
      lines.push(`if ${hung('$cstatus')}; then exit 0; fi`, 'exit 1');
      break;
    case 'compiler-crash':
      if (j.signal) lines.push(`[ "$cstatus" -eq ${128 + signalNumber(j.signal)} ] && exit 0`, 'exit 1');
      else lines.push(`[ "$cstatus" -ne 0 ] && grep -qF -- ${sq(j.match ?? 'internal compiler error')} compile.log && exit 0`, 'exit 1');
      break;
    case 'rejected-valid':
      lines.push(
        `if [ "$cstatus" -eq 0 ] || ${hung('$cstatus')} || [ "$cstatus" -gt 128 ]; then exit 1; fi`,
        "if grep -qE 'internal compiler error|PLEASE submit a bug report|Stack dump:' compile.log; then exit 1; fi",
        ...(j.match ? [`grep -qF -- ${sq(j.match)} compile.log || exit 1`] : []),
        'exit 0',
      );
      break;
    default:
      lines.push(
        '[ "$cstatus" -eq 0 ] || exit 1',
        `limited ${seconds(run)} ${bytes(run)} ./${EXE_FILE} >run.out 2>run.err`,
        'rstatus=$?',
        ...runCheck(j, hung),
      );
  }
  return lines.join('\n') + '\n';
}

/** Copies `prog.c` (from the current folder, else next to the script) into a fresh work folder. */
function copyOne(): string[] {
  return [
    `if [ -f ${SOURCE_FILE} ]; then SRC="$PWD/${SOURCE_FILE}"; else SRC="$(cd "$(dirname "$0")" && pwd)/${SOURCE_FILE}"; fi`,
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

function runCheck(j: Judgement, hung: (v: string) => string): string[] {
  switch (j.outcome) {
    case 'binary-hang':
      return [`if ${hung('$rstatus')}; then exit 0; fi`, 'exit 1'];
    case 'binary-crash':
      if (j.signal) return [`[ "$rstatus" -eq ${128 + signalNumber(j.signal)} ] && exit 0`, 'exit 1'];
      return [`[ "$rstatus" -eq ${j.exitStatus ?? 1} ] && exit 0`, 'exit 1'];
    case 'wrong-code':
      return ['[ "$rstatus" -eq 0 ] || exit 1', '[ "$(cat run.out)" != "$EXPECTED" ] && exit 0', 'exit 1'];
    default:
      throw new Error(`no repro check for outcome ${j.outcome}`);
  }
}

function seconds(s: StepLimits): string {
  return String(Math.max(1, Math.ceil(s.timeoutMs / 1000)));
}

function bytes(s: StepLimits): string {
  return s.memoryMb === undefined ? '0' : String(s.memoryMb * 1024 * 1024);
}

function signalNumber(sig: NodeJS.Signals): number {
  const n = (constants.signals as Record<string, number>)[sig];
  if (n === undefined) throw new Error(`unknown signal ${sig}`);
  return n;
}

/** Quotes a word for sh. */
export function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
