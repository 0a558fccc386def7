import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { withVersionSection, type VersionLine } from '../triage/versions.js';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { LP64, type TargetModel } from '../c/target.js';
import { isTranslationUnit, type EmittedFile } from '../emit/files.js';
import type { Compiler } from '../harness/compilers.js';
import { compileCommand } from '../harness/execute.js';
import { configEmulator, configTarget, type Configuration } from '../harness/matrix.js';
import { runProcess, SpawnError } from '../harness/process.js';
import { reproScript } from '../harness/repro.js';
import type { CrashReproducers } from '../reduce/crash-repro.js';
import type { FindingReduction } from '../reduce/finding.js';
import { FINDING_MANIFEST } from '../triage/finding.js';

/**
 * How the reduced program fared under sanitizers: clang's UndefinedBehaviorSanitizer and
 * AddressSanitizer for a host program; for a cross target's program, the cross compiler's UBSan
 * run under the target's emulator (`how` says which, in the report's words).
 */
export type SanitizerVerdict =
  | { readonly status: 'clean'; readonly compiler: string; readonly how: string }
  | { readonly status: 'error'; readonly compiler: string; readonly how: string; readonly detail: string }
  | { readonly status: 'unchecked'; readonly detail: string };

/** What {@link writeBundle} wrote. */
export interface Bundle {
  /** `DIR/reduced.c` (for a program of several files: the `reduced/` folder holding them). */
  readonly reducedFile: string;
  /** `DIR/reduced/`: the program, finding.json, repro.sh, report.md, reduced.json (and triage.json). */
  readonly folder: string;
  readonly report: string;
  readonly sanitizers: SanitizerVerdict;
}

/** Extra facts for the report (from triage). */
export interface BundleExtras {
  /** Wrong-code or crash fingerprint, e.g. `clang:InstCombinePass` or `gcc:-ftree-vrp`. */
  readonly fingerprint?: string;
  readonly fingerprintDetail?: string;
  /** The reduced program's version line (src/triage/versions.ts), shown as a table of every version tried. */
  readonly versions?: VersionLine;
  /** Extra options that pin the culprit (clang: `-mllvm -opt-bisect-limit=N`, the first limit that shows the bug). */
  readonly culpritOptions?: readonly string[];
  /** A crash's signature and reproducers (LLVM IR for clang, ICE line, pass and preprocessed source for gcc). */
  readonly crash?: CrashReproducers;
  /** The text reduction after the IR reducer (crash findings): how long it took, how many warnings are left. */
  readonly text?: { readonly seconds: number; readonly tests: number; readonly warnings: number };
}

/**
 * Makes `DIR/reduced/` a finding folder of its own — the reduced program's files and a
 * `finding.json` like the original's with the reduced program's expected and actual output — so
 * that triage (and `kiln reduce`, `repro.sh`) work on it as on any finding. Returns the folder.
 */
export function writeReducedFinding(r: FindingReduction): string {
  const folder = join(r.dir, 'reduced');
  mkdirSync(folder, { recursive: true });
  for (const x of r.files) writeFileSync(join(folder, x.name), x.content);
  const original = JSON.parse(readFileSync(join(r.dir, FINDING_MANIFEST), 'utf8')) as Record<string, unknown>;
  const manifest = {
    ...original,
    expected: r.expected,
    actual: actualOf(r),
    files: r.files.map((x) => x.name),
    reducedFrom: { lines: r.original.lines, bytes: r.original.bytes },
  };
  writeFileSync(join(folder, FINDING_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return folder;
}

/**
 * Writes the bug bundle of a reduced finding into its folder: `reduced.c` (the reduced program,
 * first line stating its expected output) and `reduced/` holding the same program as `prog.c`,
 * `repro.sh` (exits 0 while the bug shows: usable as a C-Reduce/C-Vise test), `report.md` (ready to
 * paste into a compiler's bug tracker) and `reduced.json` (the numbers). Checks the program under
 * clang `-fsanitize=undefined,address` first and says so in the report.
 */
export async function writeBundle(r: FindingReduction, extras: BundleExtras = {}): Promise<Bundle> {
  // A sanitizer finding's program is tested by sanitizers already (and a miss's has UB on purpose).
  const sanitizers: SanitizerVerdict = r.finding.outcome.startsWith('sanitizer-')
    ? { status: 'unchecked', detail: 'a sanitizer finding: its repro.sh checks the sanitizer' }
    : await sanitizerCheck(r.files, r.config);
  const folder = writeReducedFinding(r);
  const f = r.finding;
  const judgement = r.failing.judgement;
  const names = r.files.map((x) => x.name);
  // A perturbed profile configuration: the reduced program's own profile, which its repro.sh reads.
  for (const p of r.failing.profile?.files ?? []) writeFileSync(join(folder, p.name), p.content);
  // A nondeterministic finding's script accepts every behaviour it showed, as its reduction did.
  const alternatives = f.behaviours.filter((x) => !(x.outcome === judgement.outcome && x.bucket === judgement.bucket));
  writeFileSync(
    join(folder, 'repro.sh'),
    r.repro ??
      reproScript({
        id: `${f.id} (reduced)`,
        config: r.config,
        judgement,
        ...(alternatives.length ? { alternatives } : {}),
        expected: r.expected,
        limits: reproLimits(r),
        files: names,
        ...(r.failing.profile ? { profile: r.failing.profile } : {}),
      }),
    { mode: 0o755 },
  );
  const llvm = extras.crash?.llvm?.ok ? extras.crash.llvm.reproducer : undefined;
  if (llvm) writeFileSync(join(folder, 'reduced.ll'), llvm.ll);
  const preprocessed = extras.crash?.gcc?.preprocessed;
  if (preprocessed !== undefined) writeFileSync(join(folder, 'reduced.i'), preprocessed);
  const report = markdownReport(r, sanitizers, extras);
  writeFileSync(join(folder, 'report.md'), report);
  const json = {
    finding: f.id,
    outcome: f.outcome,
    bucket: f.bucket,
    compiler: r.config.compiler.name,
    compilerVersion: r.config.compiler.version,
    options: r.config.optionsText,
    command: compileCommand(r.config, names),
    reference: r.reference
      ? {
          compiler: r.reference.compiler.name,
          compilerVersion: r.reference.compiler.version,
          options: r.reference.optionsText,
        }
      : null,
    expected: r.expected,
    actual: actualOf(r),
    originalLines: r.original.lines,
    originalBytes: r.original.bytes,
    lines: r.lines,
    bytes: r.source.length,
    complete: r.complete,
    sanitizers,
    fingerprint: extras.fingerprint ?? null,
    fingerprintDetail: extras.fingerprintDetail ?? null,
    signature: extras.crash?.signature?.key ?? null,
    llvm: llvm
      ? {
          stage: llvm.stage,
          command: llvm.command,
          lines: llvm.lines,
          originalLines: llvm.originalLines,
          passes: llvm.passes ?? null,
          seconds: llvm.seconds,
        }
      : extras.crash?.llvm && !extras.crash.llvm.ok
        ? { reason: extras.crash.llvm.reason }
        : null,
    gcc: extras.crash?.gcc
      ? {
          ice: extras.crash.gcc.ice,
          pass: extras.crash.gcc.pass ?? null,
          disabledBy: extras.crash.gcc.disabledBy ?? null,
        }
      : null,
    textReduction: extras.text ?? null,
    slowCompile: r.slowCompile ?? null,
    stats: r.stats,
  };
  writeFileSync(join(folder, 'reduced.json'), `${JSON.stringify(json, null, 2)}\n`);
  // Written last: its presence means the bundle is complete. A program of several translation
  // units has no single reduced.c: its files are in reduced/.
  const reducedFile = r.files.length === 1 ? join(r.dir, 'reduced.c') : folder;
  if (r.files.length === 1) writeFileSync(reducedFile, r.source);
  return { reducedFile, folder, report, sanitizers };
}

/**
 * The limits the reduced program's repro.sh uses: the finding's, except for a slow compile, whose
 * reduced program exceeds only the reduction's limit (20 times its -O0 time), not the configured one.
 */
function reproLimits(r: FindingReduction): FindingReduction['finding']['limits'] {
  const l = r.finding.limits;
  return r.slowCompile ? { ...l, compile: { ...l.compile, timeoutMs: r.slowCompile.limitMs } } : l;
}

/** What the failing configuration did with the reduced program, in words. */
function actualOf(r: FindingReduction): string {
  const j = r.failing.judgement;
  switch (j.outcome) {
    case 'wrong-code':
      return r.failing.output ?? '';
    case 'binary-crash':
      return j.signal ? `the binary is killed by ${j.signal}` : `the binary exits with status ${j.exitStatus}`;
    case 'binary-hang':
      return 'the binary does not terminate';
    case 'compiler-hang':
      return r.slowCompile
        ? `the compiler takes more than ${(r.slowCompile.limitMs / 1000).toFixed(1)} s`
        : 'the compiler does not terminate';
    default:
      return j.detail ?? j.outcome;
  }
}

const TITLES: Record<string, string> = {
  'wrong-code': 'wrong code',
  'compiler-crash': 'compiler crash',
  'compiler-hang': 'compiler hang',
  'rejected-valid': 'valid program rejected',
  'binary-crash': 'miscompiled program crashes',
  'binary-hang': 'miscompiled program hangs',
  'sanitizer-miss': 'sanitizer misses undefined behaviour',
  'sanitizer-false-alarm': 'sanitizer reports a UB-free program',
};

/** The Markdown report of a reduced finding. */
export function markdownReport(r: FindingReduction, san: SanitizerVerdict, extras: BundleExtras = {}): string {
  const f = r.finding;
  const c = r.config;
  const opts = c.optionsText;
  const j = r.failing.judgement;
  const cmd = reportCommand(
    c,
    r.files.map((x) => x.name),
  )
    .map((t, i) => (i === 0 ? c.compiler.name : t))
    .join(' ');
  const out: string[] = [];
  out.push(
    `# ${c.compiler.name}${opts ? ` ${opts}` : ''}: ` +
      `${r.slowCompile ? 'slow compile (compile-time hog)' : (TITLES[f.outcome] ?? f.outcome)}`,
    '',
  );
  out.push(`- Compiler: \`${c.compiler.version}\``);
  out.push(`- Options: \`${opts || '(none)'}\``);
  out.push(`- Target: ${targetText(configTarget(c))}`);
  if (extras.fingerprint)
    out.push(`- Culprit${extras.fingerprintDetail ? ` (${extras.fingerprintDetail})` : ''}: \`${extras.fingerprint}\``);
  out.push('');
  out.push('## Test case', '');
  if (r.files.length === 1) out.push('```c', r.source.trimEnd(), '```', '');
  else for (const x of r.files) out.push(`\`${x.name}\`:`, '', '```c', x.content.trimEnd(), '```', '');
  // A cross binary runs under its qemu, as the campaign and repro.sh run it.
  const emulator = configEmulator(c);
  const run = emulator ? [basename(emulator[0]!), ...emulator.slice(1), './prog'].join(' ') : './prog';
  out.push('## To reproduce', '', '```sh', `${cmd}${isRun(f.outcome) ? ` && ${run}` : ''}`, '```', '');
  // A compiler of a sid root: the same command for a user who has it, and the chroot that Kiln ran.
  const root = c.compiler.root;
  if (root) {
    const words = reportCommand(
      c,
      r.files.map((x) => x.name),
    ).slice(1);
    out.push(
      `\`${c.compiler.name}\` is \`${root.command}\` of Debian ${root.suite}, which Kiln ran in a root of ` +
        `that suite and linked statically. With that compiler installed, the same test is:`,
      '',
      '```sh',
      `${root.command} ${words.join(' ')} -static${isRun(f.outcome) ? ` && ${run}` : ''}`,
      '```',
      '',
      `or, as root, in the root Kiln used (the program's folder bound into it): \`mkdir ` +
        `-p ${root.path}/tmp/case && mount --bind "$PWD" ${root.path}/tmp/case && chroot ${root.path} sh -c ` +
        `'cd /tmp/case && ${root.command} ${words.join(' ')} -static'\``,
      '',
    );
  }
  switch (f.outcome) {
    case 'wrong-code':
      out.push(
        `Expected output:`,
        '',
        '```',
        r.expected,
        '```',
        '',
        `Actual output with \`${c.compiler.name} ${opts}\`:`,
        '',
        '```',
        r.failing.output ?? '',
        '```',
        '',
      );
      if (r.reference)
        out.push(
          `\`${r.reference.compiler.name} ${r.reference.optionsText}\` (${r.reference.compiler.version}) ` +
            `prints the expected output.`,
          '',
        );
      out.push(...bisectSection(r, extras, cmd));
      break;
    case 'compiler-crash':
      out.push(...crashSections(r.failing.compile.stderr, extras, cmd));
      break;
    case 'rejected-valid':
      out.push('Compiler output:', '', '```', excerpt(r.failing.compile.stderr), '```', '');
      break;
    default:
      if (r.slowCompile) {
        const sec = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
        const s = r.slowCompile;
        const reducedBaseline =
          s.reducedBaselineMs !== undefined
            ? `, which \`${c.compiler.name} -O0\` compiles in ${sec(s.reducedBaselineMs)}`
            : '';
        out.push(
          `Observed: \`${c.compiler.name} ${opts}\` compiled the original program (${r.original.lines} ` +
            `lines) in ${sec(s.ms)}, where \`${c.compiler.name} -O0\` took ${sec(s.baselineMs)}. ` +
            `It still takes more than ${sec(s.limitMs)} on the reduced program (stopped there)${reducedBaseline}.`,
          '',
        );
        break;
      }
      out.push(`Observed: ${actualOf(r)}${j.detail ? ` (${j.detail})` : ''}.`, '');
  }
  out.push('## Notes', '');
  if (isRun(f.outcome)) {
    out.push(
      "- The program has no undefined behaviour: Kiln's reference interpreter, an exact model of C's " +
        'integer semantics, ran it with every UB check on and computed the expected output.',
    );
    if (san.status === 'clean') out.push(`- It also runs cleanly under ${san.how}.`);
    else if (san.status === 'error') out.push(`- Warning: under ${san.how}, ${san.detail}`);
    else if (configEmulator(c)) out.push(`- Not checked with sanitizers on the target: ${san.detail}.`);
  }
  out.push(
    `- Found by Kiln (generation mode ${f.mode}, seed ${f.seed}) and reduced from ${r.original.lines} ` +
      `to ${r.lines} lines with Kiln's IR ` +
      `reducer${extras.text ? ', then as text' : ''}` +
      `${r.complete ? '' : ' (stopped early: `kiln reduce` on the finding folder reduces further)'}.`,
  );
  if (r.validatedWith)
    out.push(
      `- It compiles ${/no warnings/.test(r.validatedWith) ? 'without a warning' : 'without errors'} on ` +
        `${r.validatedWith.replace(/, no warnings$/, '')} (\`-std=gnu11 -Wall -Wextra\`).`,
    );
  out.push('');
  return extras.versions ? withVersionSection(out.join('\n'), extras.versions) : out.join('\n');
}

/** The campaign's compile command as a report shows it: without the `-w` every campaign compile has. */
function reportCommand(c: Configuration, files: readonly string[]): string[] {
  return compileCommand(c, files).filter((t, i) => !(i === 1 && t === '-w'));
}

/** A crash's sections: its signature, the compiler's report, and the LLVM or GCC reproducer. */
function crashSections(stderr: string, extras: BundleExtras, cmd: string): string[] {
  const out: string[] = [];
  const sig = extras.crash?.signature;
  if (sig) out.push(`Crash signature: \`${sig.key}\`${sig.pass ? ` (pass: ${sig.pass})` : ''}.`, '');
  out.push('Compiler output:', '', '```', crashReport(stderr), '```', '');
  const llvm = extras.crash?.llvm;
  if (llvm?.ok) {
    const x = llvm.reproducer;
    const what =
      x.stage === 'middle-end'
        ? `A crash of LLVM's optimiser: \`${x.tool}\` crashes the same way on \`reduced.ll\` with ` +
          `${x.passes === 1 ? 'one pass' : `a pipeline of ${x.passes} passes`}`
        : `A crash of LLVM's code generator: \`${x.tool}\` crashes the same way on \`reduced.ll\``;
    out.push(
      '## LLVM reproducer',
      '',
      `${what}. \`reduced.ll\` (${x.lines} lines) is the test case's IR ${irOrigin(x.stage)} from the same ` +
        `clang, ${x.lines < x.originalLines ? `reduced from ${x.originalLines} lines by llvm-reduce` : 'not reduced'}` +
        "; both keep the crash's signature.",
      '',
      '```sh',
      x.command,
      '```',
      '',
      '```llvm',
      x.ll.trimEnd(),
      '```',
      '',
    );
  } else if (llvm && !llvm.ok) out.push(`No LLVM reproducer: ${llvm.reason}.`, '');
  const gcc = extras.crash?.gcc;
  if (gcc) {
    out.push('## GCC', '', `- ICE: \`${gcc.ice}\``);
    if (gcc.pass)
      out.push(
        `- Pass: \`${gcc.pass}\`` +
          `${gcc.disabledBy ? ` (\`${cmd} ${gcc.disabledBy}\` compiles it: the crash is in that pass)` : ''}`,
      );
    if (gcc.preprocessed !== undefined)
      out.push(`- Preprocessed source: \`reduced.i\` (\`${gcc.command.replace(/ -c reduced\.c$/, '')} -E reduced.c\`)`);
    out.push('');
  }
  return out;
}

/** Which IR a reproducer starts from, in a report's words. */
function irOrigin(stage: 'middle-end' | 'back-end'): string {
  return stage === 'middle-end'
    ? 'before any pass (`-emit-llvm -Xclang -disable-llvm-passes`)'
    : 'after the optimiser (`-emit-llvm`)';
}

/** A crash report for people: every line, the longest (LLVM's pipelines) cut at 300 characters. */
function crashReport(s: string): string {
  return s
    .trimEnd()
    .split('\n')
    .map((l) => (l.length > 300 ? `${l.slice(0, 300)} […]` : l))
    .join('\n');
}

/** For a clang wrong-code finding that opt-bisect explained: the two runs around the culprit pass. */
function bisectSection(r: FindingReduction, extras: BundleExtras, cmd: string): string[] {
  const limit = extras.culpritOptions?.find((o) => o.startsWith('-opt-bisect-limit='));
  if (!limit) return [];
  const n = Number(limit.slice('-opt-bisect-limit='.length));
  const run = configEmulator(r.config) ? '' : ' && ./prog';
  return [
    `LLVM's opt-bisect names the culprit: \`${extras.fingerprint ?? ''}\` (${extras.fingerprintDetail ?? ''}).`,
    '',
    '```sh',
    `${cmd} -mllvm -opt-bisect-limit=${n - 1}${run}   # the expected output`,
    `${cmd} -mllvm -opt-bisect-limit=${n}${run}   # the wrong output`,
    '```',
    '',
  ];
}

function isRun(outcome: string): boolean {
  return outcome === 'wrong-code' || outcome === 'binary-crash' || outcome === 'binary-hang';
}

/** The first 20 and the last 10 lines of a long compiler output (its decisive line often comes last). */
function excerpt(s: string): string {
  const lines = s.trimEnd().split('\n');
  return lines.length > 30
    ? [...lines.slice(0, 20), `[… ${lines.length - 30} more lines]`, ...lines.slice(-10)].join('\n')
    : lines.join('\n');
}

/** The platform a configuration's binaries are for, in a report's words. */
function targetText(m: TargetModel): string {
  if (m === LP64) return 'x86-64 Linux (LP64)';
  const data = m.longBits === 64 ? 'LP64' : 'ILP32';
  return (
    `${m.name} Linux (${m.triplet}; ${data}, ${m.endian}-endian, ${m.charSigned ? 'signed' : 'unsigned'} ` +
    `plain char)`
  );
}

/**
 * Compiles the program with sanitizers and runs it: `clean` when it exits 0 with nothing on
 * stderr. A host program (no `config`, or a native one) gets clang's UBSan and ASan, recovery
 * off; the campaign's memory limit is not applied (ASan reserves terabytes of address space).
 * A cross target's program is checked on its target, because its behaviour is the target's
 * (an ILP32 program built for x86-64 is another program): see {@link targetSanitizerCheck}.
 */
async function sanitizerCheck(files: readonly EmittedFile[], config?: Configuration): Promise<SanitizerVerdict> {
  if (config && configTarget(config) !== LP64) return targetSanitizerCheck(files, config);
  const cc = 'clang';
  const how = `\`${cc} -fsanitize=undefined,address\``;
  return withProgram(files, async (dir, units) => {
    let comp;
    try {
      comp = await runProcess(
        cc,
        ['-O0', '-g', '-fsanitize=undefined,address', '-fno-sanitize-recover=all', ...units, '-o', 'prog', '-lm'],
        { cwd: dir, timeoutMs: 120_000, maxOutputBytes: 64 << 10 },
      );
    } catch (e) {
      if (e instanceof SpawnError)
        return { status: 'unchecked', detail: `${cc} not found (install it with npm run setup)` };
      throw e;
    }
    if (comp.status !== 0)
      return {
        status: 'unchecked',
        detail: `${cc} could not build it with sanitizers: ${comp.stderr.split('\n')[0] ?? ''}`,
      };
    const run = await runProcess(join(dir, 'prog'), [], { cwd: dir, timeoutMs: 60_000, maxOutputBytes: 64 << 10 });
    if (run.status === 0 && run.stderr.trim() === '') return { status: 'clean', compiler: cc, how };
    const first =
      run.stderr.split('\n').find((l) => l.includes('runtime error') || l.includes('ERROR')) ??
      `exit status ${run.status ?? run.signal}`;
    return { status: 'error', compiler: cc, how, detail: `it reports: ${first.trim()}` };
  });
}

/**
 * The sanitizer check of a cross target's program: the configuration's cross compiler builds it at
 * -O0 with UBSan and it runs under the target's emulator. With UBSan's runtime when the target
 * has one (Debian ships it for aarch64, arm, i686 and s390x; powerpc's needs libatomic, which is
 * tried too), else with `-fsanitize-undefined-trap-on-error`: the same checks, each a trap
 * instruction, so any target can run them. ASan does not run under qemu's user mode.
 */
export async function targetSanitizerCheck(
  files: readonly EmittedFile[],
  config: Configuration,
): Promise<SanitizerVerdict> {
  const emulator = configEmulator(config);
  const cc = config.compiler;
  const model = configTarget(config);
  if (!emulator) return { status: 'unchecked', detail: `no emulator for ${model.name} binaries` };
  const ways: { flags: string[]; libs: string[]; trap: boolean }[] = [
    { flags: ['-fsanitize=undefined', '-fno-sanitize-recover=all'], libs: [], trap: false },
    { flags: ['-fsanitize=undefined', '-fno-sanitize-recover=all'], libs: ['-latomic'], trap: false },
    { flags: ['-fsanitize=undefined', '-fsanitize-undefined-trap-on-error'], libs: [], trap: true },
  ];
  return withProgram(files, async (dir, units) => {
    let firstError = '';
    for (const w of ways) {
      let comp;
      try {
        comp = await runProcess(cc.command, ['-O0', ...w.flags, ...units, '-o', 'prog', '-lm', ...w.libs], {
          cwd: dir,
          timeoutMs: 300_000,
          maxOutputBytes: 64 << 10,
        });
      } catch (e) {
        if (e instanceof SpawnError) return { status: 'unchecked', detail: `${cc.name} not found` };
        throw e;
      }
      if (comp.status !== 0) {
        firstError ||= comp.stderr.split('\n').find((l) => /error/.test(l)) ?? '';
        continue;
      }
      const how =
        `\`${cc.name} ${w.flags.join(' ')}` +
        `\`${w.trap ? ' (no UBSan runtime for this target: each check traps)' : ''}, run ` +
        `under ${basename(emulator[0]!)}`;
      const run = await runProcess(emulator[0]!, [...emulator.slice(1), './prog'], {
        cwd: dir,
        timeoutMs: 300_000,
        maxOutputBytes: 64 << 10,
      });
      if (run.status === 0 && run.stderr.trim() === '') return { status: 'clean', compiler: cc.name, how };
      const message = run.stderr.split('\n').find((l) => l.includes('runtime error'));
      const detail = message
        ? `it reports: ${message.trim()}`
        : w.trap && run.signal
          ? `a check trapped (${run.signal})`
          : `it exits with ${run.signal ?? `status ${run.status}`}`;
      return { status: 'error', compiler: cc.name, how, detail };
    }
    return { status: 'unchecked', detail: `${cc.name} could not build it with UBSan: ${firstError.trim()}` };
  });
}

/** Runs `f` in a temporary folder holding the program's files, with the names of its translation units. */
async function withProgram(
  files: readonly EmittedFile[],
  f: (dir: string, units: string[]) => Promise<SanitizerVerdict>,
): Promise<SanitizerVerdict> {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-san-'));
  try {
    for (const x of files) writeFileSync(join(dir, x.name), x.content);
    return await f(dir, files.map((x) => x.name).filter(isTranslationUnit));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What {@link writeCrashFileBundle} needs: a C file reduced by `kiln reduce --crash`. */
export interface CrashFileBundleInput {
  /** The folder to write (`bug.reduced/`). */
  readonly folder: string;
  /** The compiler as resolved from the `--crash` command, and the command's options. */
  readonly compiler: Compiler;
  readonly options: readonly string[];
  /** The reduced file's text, and the sizes before and after. */
  readonly source: string;
  readonly originalLines: number;
  readonly seconds: number;
  /** The compiler's output on the reduced file (its crash report). */
  readonly stderr: string;
  readonly crash: CrashReproducers;
  /** The interestingness test the reduction used. */
  readonly test: string;
}

/**
 * The bundle of a C file reduced by `kiln reduce --crash "CC OPTS" FILE.c`: the same report.md,
 * reduced.ll or reduced.i as a finding's, beside the reduced file and the test that kept it.
 * Returns the report's path.
 */
export function writeCrashFileBundle(b: CrashFileBundleInput): string {
  mkdirSync(b.folder, { recursive: true });
  writeFileSync(join(b.folder, 'reduced.c'), b.source);
  writeFileSync(join(b.folder, 'test.sh'), readFileSync(b.test, 'utf8'), { mode: 0o755 });
  const llvm = b.crash.llvm?.ok ? b.crash.llvm.reproducer : undefined;
  if (llvm) writeFileSync(join(b.folder, 'reduced.ll'), llvm.ll);
  if (b.crash.gcc?.preprocessed !== undefined) writeFileSync(join(b.folder, 'reduced.i'), b.crash.gcc.preprocessed);
  const opts = b.options.join(' ');
  const cmd = [b.compiler.name, ...b.options, '-c', 'reduced.c'].join(' ');
  const lines = b.source.split('\n').filter((l) => l.trim() !== '').length;
  const out = [
    `# ${b.compiler.name}${opts ? ` ${opts}` : ''}: compiler crash`,
    '',
    `- Compiler: \`${b.compiler.version}\``,
    `- Options: \`${opts || '(none)'}\``,
    '',
    '## Test case',
    '',
    '```c',
    b.source.trimEnd(),
    '```',
    '',
    '## To reproduce',
    '',
    '```sh',
    cmd,
    '```',
    '',
    ...crashSections(b.stderr, { crash: b.crash }, cmd.replace(/ -c reduced\.c$/, '')),
    '## Notes',
    '',
    `- Reduced by \`kiln reduce --crash\` from ${b.originalLines} to ${lines} lines in ${b.seconds.toFixed(1)} s; ` +
      '`test.sh` is the interestingness test that kept the crash signature.',
    '',
  ];
  const report = join(b.folder, 'report.md');
  writeFileSync(report, out.join('\n'));
  return report;
}
