import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmittedFile } from '../emit/files.js';
import { accepts, compilerCapabilities } from '../harness/capabilities.js';
import type { Compiler } from '../harness/compilers.js';
import type { ProgramRequires } from '../ir/census.js';
import { runProcess } from '../harness/process.js';

// The validity check of a reduced test case: it must compile, on the newest gcc and clang
// installed, without errors and without the diagnostics GCC 14 made errors by default. A test
// case that only an old compiler accepts (GCC 12 warns about `uint64_t *p = &i` for an `int i`,
// GCC 14 rejects it) cannot be tried by anyone on a current compiler.

/** Options every validity compile uses (before the `-Werror=` flags the compiler knows). */
const VALIDITY_FLAGS: readonly string[] = ['-std=gnu11', '-Wall', '-Wextra', '-fsyntax-only'];

/**
 * The diagnostics GCC 14 turned into errors by default, each with what identifies it in the
 * output of the compilers that name it otherwise: older gcc prints some without an option of
 * their own (`-Wreturn-type`, or none), clang under its own names.
 */
export const GCC14_ERRORS = [
  'implicit-function-declaration',
  'implicit-int',
  'int-conversion',
  'incompatible-pointer-types',
  'return-mismatch',
  'declaration-missing-parameter-type',
] as const;

/** One of {@link GCC14_ERRORS}. */
export type ValidityCode = (typeof GCC14_ERRORS)[number];

/** `-Werror=` options asked of gcc and clang (a compiler that does not know one is not given it). */
const WERROR: Readonly<Record<'gcc' | 'clang', readonly string[]>> = {
  gcc: GCC14_ERRORS,
  clang: [
    'implicit-function-declaration',
    'implicit-int',
    'int-conversion',
    'incompatible-pointer-types',
    'incompatible-function-pointer-types',
  ],
};

/** Option names (in `[-W…]`) that mean one of the codes, for gcc and clang of any version. */
const OPTION_CODES: ReadonlyMap<string, ValidityCode> = new Map([
  ['implicit-function-declaration', 'implicit-function-declaration'],
  ['implicit-int', 'implicit-int'],
  ['int-conversion', 'int-conversion'],
  ['incompatible-pointer-types', 'incompatible-pointer-types'],
  ['incompatible-pointer-types-discards-qualifiers', 'incompatible-pointer-types'],
  ['incompatible-function-pointer-types', 'incompatible-pointer-types'],
  ['return-mismatch', 'return-mismatch'],
  ['declaration-missing-parameter-type', 'declaration-missing-parameter-type'],
]);

/** Messages that mean one of the codes where the option printed is a broader one, or none. */
const MESSAGE_CODES: readonly (readonly [RegExp, ValidityCode])[] = [
  // gcc before 14, under -Wreturn-type; clang, under -Wreturn-type.
  [/['‘]return['’] with (?:a|no) value, in function returning/, 'return-mismatch'],
  [/(?:void|non-void) function '[^']*' should (?:not )?return a value/, 'return-mismatch'],
  // gcc before 14 prints it with no option; clang rejects it.
  [/parameter names \(without types\) in function declaration/, 'declaration-missing-parameter-type'],
  [/a parameter list without types is only allowed in a function definition/, 'declaration-missing-parameter-type'],
];

/** One diagnostic that makes a test case invalid. */
interface ValidityDiagnostic {
  /** The compiler that printed it (its display name). */
  readonly compiler: string;
  /** One of {@link GCC14_ERRORS}, `error` for any other error, `warning` for any warning of a strict check. */
  readonly code: ValidityCode | 'error' | 'warning';
  /** The diagnostic's line as printed (file, position, message). */
  readonly line: string;
}

/** The verdict of the validity check on one test case. */
export interface ValidityResult {
  readonly ok: boolean;
  /** Why it is not valid (empty when `ok`). */
  readonly diagnostics: readonly ValidityDiagnostic[];
  /**
   * Compilers that crashed or timed out on it: they say nothing about its validity (a front-end crash is a bug of
   * theirs).
   */
  readonly inconclusive: readonly string[];
}

/** A compiler's version as numbers (`gcc (Debian 12.2.0-14) 12.2.0` → [12, 2, 0]); [] when it has none. */
export function versionNumbers(version: string): number[] {
  const m = /(?:version\s+|\)\s*|\s)(\d+)\.(\d+)(?:\.(\d+))?/.exec(version) ?? /(\d+)\.(\d+)(?:\.(\d+))?/.exec(version);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : [];
}

function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? -1) - (b[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The compilers a validity check uses: of the detected ones (`detectCompilers()`), the newest
 * native gcc and the newest native clang, by version (ties: the first detected). Compilers added
 * later (a gcc-16 or clang-22 launcher on PATH) are picked up as they appear.
 */
export function validityCompilers(detected: readonly Compiler[]): Compiler[] {
  const out: Compiler[] = [];
  for (const family of ['gcc', 'clang'] as const) {
    let best: Compiler | undefined;
    for (const c of detected) {
      if (c.family !== family || c.target !== undefined) continue;
      if (!best || compareVersions(versionNumbers(c.version), versionNumbers(best.version)) > 0) best = c;
    }
    if (best) out.push(best);
  }
  return out;
}

/**
 * {@link validityCompilers} among the compilers that accept what a program needs (`_BitInt` of its
 * width, `__int128`, vectors and their builtins; probed, cached): gcc 12 does not judge a program
 * with `_BitInt`, and a family none of whose compilers accepts it is left out.
 */
export async function validityCompilersFor(detected: readonly Compiler[], req: ProgramRequires): Promise<Compiler[]> {
  const ok: Compiler[] = [];
  for (const c of detected) if (accepts(await compilerCapabilities(c), req)) ok.push(c);
  return validityCompilers(ok);
}

/** Classifies one line of compiler output: a diagnostic that makes the program invalid, or undefined. */
export function invalidating(line: string): ValidityCode | 'error' | undefined {
  const m = /^[^\s:][^:]*:\d+:(?:\d+:)?\s*(warning|error):\s*(.*)$/.exec(line.trim());
  if (!m) return undefined;
  const message = m[2]!;
  // `[-Wfoo]`, gcc's `[-Werror=foo]`, clang's `[-Werror,-Wfoo]`.
  const option = /\[(?:-Werror,)?-W(?:error=)?([\w-]+)\]\s*$/.exec(message)?.[1];
  const code =
    (option !== undefined ? OPTION_CODES.get(option) : undefined) ??
    MESSAGE_CODES.find(([re]) => re.test(message))?.[1];
  if (code) return code;
  return m[1] === 'error' ? 'error' : undefined;
}

/** Whether a line of compiler output is a warning about the file (`prog.c:3:5: warning: …`). */
function isWarning(line: string): boolean {
  return /^[^\s:][^:]*:\d+:(?:\d+:)?\s*warning:/.test(line.trim());
}

/**
 * Checks test cases for validity. One instance per reduction: it remembers which `-Werror=`
 * options each compiler knows (probed once) and runs its compiles in a scratch folder of its own.
 */
export class ValidityChecker {
  private readonly known = new Map<string, Promise<string[]>>();

  constructor(
    /** The compilers to ask (see {@link validityCompilers}); none means every test case passes. */
    readonly compilers: readonly Compiler[],
    /** Limit of one compile. */
    private readonly timeoutMs = 60_000,
    /**
     * Refuse every warning of `-Wall -Wextra`, not only the errors GCC 14 made of some: a reduced
     * case a user files must compile cleanly (used where the input already does).
     */
    readonly strict = false,
  ) {}

  /** The same check refusing every warning. */
  strictly(): ValidityChecker {
    return new ValidityChecker(this.compilers, this.timeoutMs, true);
  }

  /** A short description for progress lines: `gcc-12 12.2.0, clang-15 15.0.6`. */
  describe(): string {
    const names = this.compilers.map((c) => `${c.name} ${versionNumbers(c.version).join('.')}`).join(', ');
    return names ? `${names}${this.strict ? ', no warnings' : ''}` : 'no gcc or clang';
  }

  /** The `-Werror=` options a compiler knows, of those asked for its family. */
  private werrors(c: Compiler): Promise<string[]> {
    let p = this.known.get(c.realPath);
    if (!p) {
      p = this.probe(c);
      this.known.set(c.realPath, p);
    }
    return p;
  }

  private async probe(c: Compiler): Promise<string[]> {
    const wanted = WERROR[c.family === 'clang' ? 'clang' : 'gcc'];
    const dir = await mkdtemp(join(tmpdir(), 'kiln-validity-'));
    try {
      await writeFile(join(dir, 'probe.c'), 'int main(void) { return 0; }\n');
      // gcc rejects an unknown -Werror=X; clang warns about it.
      const accepts = async (ws: readonly string[]): Promise<boolean> => {
        const r = await runProcess(c.command, [...VALIDITY_FLAGS, ...ws.map((w) => `-Werror=${w}`), 'probe.c'], {
          cwd: dir,
          timeoutMs: this.timeoutMs,
          env: { LC_ALL: 'C' },
        });
        return r.status === 0 && !/unknown warning option|no option -W/.test(r.stdout + r.stderr);
      };
      if (await accepts(wanted)) return [...wanted];
      const out: string[] = [];
      for (const w of wanted) if (await accepts([w])) out.push(w);
      return out;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Checks one test case (its translation units: several for a split program, each compiled on its own). */
  async check(files: readonly EmittedFile[], signal?: AbortSignal): Promise<ValidityResult> {
    return (await this.checkMany([files], signal))[0]!;
  }

  /**
   * Checks several test cases with one compiler invocation per compiler (a driver given many
   * files compiles each as its own translation unit; start-up dominates the cost of small ones).
   * Each case gets a folder of its own, and each diagnostic is charged to the case its path names.
   */
  async checkMany(cases: readonly (readonly EmittedFile[])[], signal?: AbortSignal): Promise<ValidityResult[]> {
    const results = cases.map(() => ({ diagnostics: [] as ValidityDiagnostic[], inconclusive: [] as string[] }));
    if (this.compilers.length === 0 || cases.length === 0) return results.map((r) => ({ ok: true, ...r }));
    const dir = await mkdtemp(join(tmpdir(), 'kiln-validity-'));
    try {
      const units: string[] = [];
      const owner = new Map<string, number>();
      for (let i = 0; i < cases.length; i++) {
        const sub = cases.length === 1 ? '.' : `case${i}`;
        await mkdir(join(dir, sub), { recursive: true });
        for (const f of cases[i]!) {
          await writeFile(join(dir, sub, f.name), f.content);
          if (!f.name.endsWith('.c')) continue;
          const unit = cases.length === 1 ? f.name : `${sub}/${f.name}`;
          units.push(unit);
          owner.set(unit, i);
        }
      }
      const charge = (line: string): number | undefined => {
        const path = /^([^:\s]+):\d+:/.exec(line.trim())?.[1];
        return path === undefined ? undefined : owner.get(path.replace(/^\.\//, ''));
      };
      await Promise.all(
        this.compilers.map(async (c) => {
          const flags = (await this.werrors(c)).map((w) => `-Werror=${w}`);
          // The limit is per case: a batch of 25 large programs on a loaded machine needs minutes.
          const r = await runProcess(c.command, [...VALIDITY_FLAGS, ...flags, ...units], {
            cwd: dir,
            timeoutMs: this.timeoutMs * cases.length,
            env: { LC_ALL: 'C' },
            ...(signal ? { signal } : {}),
          });
          const output = `${r.stdout}\n${r.stderr}`;
          // A crash, a timeout, or a compiler that could not be started (a root compiler's
          // launcher without its root: status 126 or 127) says nothing about the case.
          if (
            r.aborted ||
            r.timedOut ||
            r.signal !== null ||
            r.status === 126 ||
            r.status === 127 ||
            /internal compiler error|PLEASE submit a bug report|Stack dump:/.test(output)
          ) {
            for (const x of results) x.inconclusive.push(c.name);
            return;
          }
          let found = false;
          for (const line of output.split('\n')) {
            const code = invalidating(line) ?? (this.strict && isWarning(line) ? 'warning' : undefined);
            if (!code) continue;
            found = true;
            const i = charge(line);
            for (const [k, x] of results.entries())
              if (i === undefined || i === k) x.diagnostics.push({ compiler: c.name, code, line: line.trim() });
          }
          if (r.status !== 0 && !found) {
            const first = output.trim().split('\n')[0] ?? '';
            for (const x of results)
              x.diagnostics.push({
                compiler: c.name,
                code: 'error',
                line: `${c.name} exited with status ${r.status}: ${first}`,
              });
          }
        }),
      );
      return results.map((r) => ({ ok: r.diagnostics.length === 0, ...r }));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** A one-line summary of why a test case is invalid (the first few diagnostics). */
export function validitySummary(r: ValidityResult, max = 3): string {
  const shown = r.diagnostics.slice(0, max).map((d) => `${d.compiler}: ${d.line}`);
  const more = r.diagnostics.length > max ? ` (and ${r.diagnostics.length - max} more)` : '';
  return shown.join('; ') + more;
}
