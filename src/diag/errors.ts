/**
 * User-facing errors with stable codes. A user error (bad flag, broken config, unknown compiler,
 * unparsable C file, missing tool) is a `KilnError`: the CLI prints `kiln: error[CODE]: message`
 * and a hint, and exits with status 2, never a stack trace. Tests assert on codes.
 */
export class KilnError extends Error {
  constructor(
    /** Stable, searchable code, e.g. `KILN_BAD_OPTION`. */
    readonly code: string,
    message: string,
    /** What the user can do about it. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'KilnError';
  }
}

/** Whether a value is a KilnError. */
export function isKilnError(e: unknown): e is KilnError {
  return e instanceof KilnError;
}

/** An invalid command-line option value. */
export function errBadOption(option: string, value: string, expected: string): KilnError {
  return new KilnError(
    'KILN_BAD_OPTION',
    `invalid value '${value}' for ${option}: expected ${expected}`,
    `see 'kiln help' for the accepted values`,
  );
}

/** A configuration or policy file that cannot be read or validated. */
export function errBadConfig(file: string, detail: string): KilnError {
  return new KilnError(
    'KILN_BAD_CONFIG',
    `${file}: ${detail}`,
    'fix the field named above; docs/config.md documents every field and its default',
  );
}

/** A compiler that is not installed or cannot be run. */
export function errUnknownCompiler(name: string, detail?: string): KilnError {
  return new KilnError(
    'KILN_UNKNOWN_COMPILER',
    `compiler '${name}' cannot be used${detail ? `: ${detail}` : ''}`,
    "check the name with 'kiln compilers', or give a path to the compiler driver",
  );
}

/** A required external tool is missing. */
export function errMissingTool(tool: string, pkg: string): KilnError {
  return new KilnError(
    'KILN_MISSING_TOOL',
    `required tool '${tool}' is not installed`,
    `install it with 'npm run tools' (apt-get install -y ${pkg})`,
  );
}

/** A file or directory Kiln cannot read or write. */
export function errFile(path: string, detail: string, hint = 'check the path and its permissions'): KilnError {
  return new KilnError('KILN_FILE', `${path}: ${detail}`, hint);
}

/** A C file that cannot be parsed. */
export function errParse(
  path: string,
  detail: string,
  hint = 'kiln reduce needs a preprocessed, syntactically valid C file',
): KilnError {
  return new KilnError('KILN_PARSE', `${path}: cannot parse C: ${detail}`, hint);
}

/** Why a C program of the user's cannot serve as a test with one expected output. */
export type UnusableProgramCode =
  | 'KILN_DOES_NOT_COMPILE'
  | 'KILN_DOES_NOT_TERMINATE'
  | 'KILN_NONDETERMINISTIC'
  | 'KILN_ABNORMAL_EXIT'
  | 'KILN_OUTPUT_TOO_LARGE';

const UNUSABLE_HINTS: Record<UnusableProgramCode, string> = {
  KILN_DOES_NOT_COMPILE: 'fix the error, or give include paths and macros with --cflags',
  KILN_DOES_NOT_TERMINATE: 'give the program input-free work that ends, or a longer --timeout',
  KILN_NONDETERMINISTIC:
    'the program must print the same output on every run (no time, pid, addresses or uninitialised reads)',
  KILN_ABNORMAL_EXIT: 'the program must exit with status 0 (a crash or a non-zero status has no expected output)',
  KILN_OUTPUT_TOO_LARGE:
    'print less (a checksum of the results, as Csmith programs do): test runs keep only that much output',
};

/**
 * A C program that does not compile, does not terminate, prints differently on two runs, exits abnormally or prints too
 * much.
 */
export function errUnusableProgram(code: UnusableProgramCode, path: string, detail: string): KilnError {
  return new KilnError(code, `${path}: ${detail}`, UNUSABLE_HINTS[code]);
}

/** A request that conflicts with the state on disk (e.g. resuming a campaign that does not exist). */
export function errState(detail: string, hint?: string): KilnError {
  return new KilnError('KILN_STATE', detail, hint);
}

/** An interestingness test that does not accept the original file, so there is nothing to reduce. */
export function errNotInteresting(file: string, detail: string): KilnError {
  return new KilnError(
    'KILN_NOT_INTERESTING',
    `${file}: the interestingness test does not accept the original file (${detail})`,
    'run the test by hand in a directory holding a copy of the file under the same name: it must exit with status 0',
  );
}

/** A reduction stopped by Ctrl-C before it had checked the original. */
export function errInterrupted(what: string): KilnError {
  return new KilnError(
    'KILN_INTERRUPTED',
    `${what}: interrupted before anything was reduced`,
    'run it again; nothing was written',
  );
}

/** An interestingness test script that cannot be run. */
export function errBadTestScript(script: string, detail: string): KilnError {
  return new KilnError(
    'KILN_BAD_TEST',
    `interestingness test ${script}: ${detail}`,
    'give an executable script (chmod +x) that exits 0 when the file is interesting',
  );
}

/** A directory given to `kiln reduce` that does not hold a Kiln finding. */
export function errNotAFinding(dir: string): KilnError {
  return new KilnError(
    'KILN_NOT_A_FINDING',
    `${dir}: not a Kiln finding (no finding.json)`,
    'give a finding directory written by kiln fuzz, or a .c file with --test SCRIPT',
  );
}

/** A Kiln database that cannot be opened, is not a Kiln database, or comes from a newer Kiln. */
export function errDatabase(path: string, detail: string): KilnError {
  return new KilnError(
    'KILN_DATABASE',
    `${path}: ${detail}`,
    'point --out at the folder of a Kiln campaign, or at a new folder',
  );
}

/** A command line Kiln's parser refuses: an unknown command or option, a missing or extra argument. */
export function errUsage(
  code: 'KILN_UNKNOWN_COMMAND' | 'KILN_UNKNOWN_OPTION' | 'KILN_BAD_ARGUMENTS',
  detail: string,
  hint: string,
): KilnError {
  return new KilnError(code, detail, hint);
}

/** A compiler configuration that cannot build and run a tiny valid program under the campaign's limits. */
export function errBrokenConfiguration(config: string, detail: string, others: number, hint: string): KilnError {
  return new KilnError(
    'KILN_BROKEN_COMPILER',
    `configuration '${config}' does not ` +
      `work: ${detail}${others > 0 ? ` (and ${others} more configurations fail)` : ''}`,
    hint,
  );
}

/** A Redis server (the queue of a distributed campaign) that cannot be reached. */
export function errQueueUnreachable(url: string, detail: string): KilnError {
  return new KilnError(
    'KILN_QUEUE_UNREACHABLE',
    `cannot reach the queue at ${url}: ${detail}`,
    'start redis-server there (or check the host, port and password in the URL)',
  );
}

/** A Redis database whose queue belongs to another campaign. */
export function errQueueBusy(url: string, owner: string): KilnError {
  return new KilnError(
    'KILN_QUEUE_BUSY',
    `the queue at ${url} belongs to another campaign (${owner})`,
    "resume that campaign with 'kiln fuzz --resume' from its output folder, or give this one another " +
      'database: redis://HOST:PORT/N',
  );
}

/** A worker whose Kiln or compilers differ from the campaign's: its results would not be comparable. */
export function errWorkerMismatch(detail: string): KilnError {
  return new KilnError(
    'KILN_WORKER_MISMATCH',
    `this worker cannot run the campaign: ${detail}`,
    'install the same Kiln and compiler versions as the coordinator, or run the worker on a machine that has them',
  );
}
