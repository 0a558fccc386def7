// Crash signatures from real crash reports (test/harness/fixtures/crash/, see its README): one bug
// is one bucket across versions of a family and across options, two bugs are two buckets, and
// repro.sh's signature check accepts a report of the same bug and refuses another.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Compiler } from '../../src/harness/compilers.js';
import { excerpt } from '../../src/harness/findings.js';
import { buildMatrix } from '../../src/harness/matrix.js';
import { judgeCompile, type Judgement } from '../../src/harness/oracle.js';
import type { RunResult } from '../../src/harness/process.js';
import { crashFamily, crashSignature, signatureShell, simplifySymbol } from '../../src/harness/signature.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'crash');
const fixture = (name: string): string => readFileSync(join(FIXTURES, `${name}.txt`), 'utf8');

function compiler(name: string, family: 'gcc' | 'clang', target?: string): Compiler {
  return {
    name,
    command: `/usr/bin/${name}`,
    realPath: `/usr/bin/${name}`,
    family,
    version: `${family} version of ${name}`,
    ...(target ? { target } : {}),
  };
}

/** The campaign's judgement of a compile that printed `stderr` (and died of `signal`, as clang-23's driver does). */
function judge(
  name: string,
  family: 'gcc' | 'clang',
  options: string,
  stderr: string,
  extra: { status?: number | null; signal?: NodeJS.Signals; target?: string } = {},
): Judgement {
  const config = buildMatrix([compiler(name, family, extra.target)], [options])[0]!;
  const r: RunResult = {
    status: extra.signal ? null : (extra.status ?? 1),
    signal: extra.signal ?? null,
    stdout: '',
    stderr,
    timedOut: false,
    aborted: false,
    truncated: false,
    durationMs: 1,
  };
  return judgeCompile(r, config, false)!;
}

describe('crash buckets from the compiler’s own report', () => {
  it('gives the loop-deletion crash of clang 21, 22 and 23 one bucket, whichever way each died, at any level', () => {
    // clang-22 and clang-21: the front end segfaults, the driver reports it and exits 1;
    // clang-23's driver itself dies of SIGABRT after printing the stack dump.
    const j21 = judge('clang-21', 'clang', '-O2', fixture('clang-21-loop-deletion'));
    const j22 = judge('clang-22', 'clang', '-O1', fixture('clang-22-loop-deletion'));
    const j23 = judge('clang-23', 'clang', '-O3', fixture('clang-23-loop-deletion'), { signal: 'SIGABRT' });
    for (const j of [j21, j22, j23]) expect(j.outcome).toBe('compiler-crash');
    expect(j22.bucket).toBe(
      'compiler-crash:clang:LoopDeletionPass: llvm::breakLoopBackedge < llvm::LoopDeletionPass::run',
    );
    expect(j23.bucket).toBe(j22.bucket);
    expect(j21.bucket).toBe(j22.bucket);
    expect(j23.signal).toBe('SIGABRT');
    // The key names neither a version nor an option.
    expect(j22.bucket).not.toMatch(/22|23|-O/);
  });

  it('gives two different LLVM crashes two buckets, and one bug in clang 16 and 22 one bucket', () => {
    const vec16 = judge('clang-16', 'clang', '-O3 -Rpass-missed=loop-vectorize', fixture('clang-16-vectorize-remark'));
    const vec22 = judge('clang-22', 'clang', '-O3 -Rpass-missed=loop-vectorize', fixture('clang-22-vectorize-remark'));
    const del22 = judge('clang-22', 'clang', '-O3', fixture('clang-22-loop-deletion'));
    // clang 16 has no "Running pass" line here: the pass comes from the innermost `…Pass::run` frame.
    expect(vec16.bucket).toBe(
      'compiler-crash:clang:LoopVectorizePass: llvm::RecurrenceDescriptor::AddReductionVar < ' +
        'llvm::RecurrenceDescriptor::isReductionPHI',
    );
    expect(vec22.bucket).toBe(vec16.bucket);
    expect(vec22.bucket).not.toBe(del22.bucket);
    const front = judge('clang-16', 'clang', '-O0', fixture('clang-16-frontend-crash'));
    const fatal = judge('clang-16', 'clang', '-O0', fixture('clang-16-fatal-error'));
    expect(front.bucket).toBe(
      'compiler-crash:clang:clang::Preprocessor::HandlePragmaDirective < clang::Preprocessor::HandleDirective',
    );
    expect(fatal.bucket).toBe('compiler-crash:clang:LLVM ERROR: #pragma clang __debug llvm_fatal_error');
    expect(new Set([vec16, del22, front, fatal].map((j) => j.bucket)).size).toBe(4);
  });

  it('keys a GCC segfault by the top frames of its backtrace, without the crash machinery', () => {
    const s = crashSignature(fixture('gcc-snapshot-postreload-segv'), 'gcc', 'gcc')!;
    expect(s.kind).toBe('signal');
    expect(s.frames).toEqual(['get_addr', 'canon_anti_dependence']);
    expect(s.pass).toBe('RTL pass: postreload');
    expect(s.key).toBe('internal compiler error: Segmentation fault in get_addr < canon_anti_dependence');
    const j = judge('gcc-snapshot', 'gcc', '-O2 -fno-tree-vrp', fixture('gcc-snapshot-postreload-segv'));
    expect(j.bucket).toBe(`compiler-crash:gcc:${s.key}`);
  });

  it('keys a GCC assertion by its function and file, not its line, path, version or the pass it ran in', () => {
    const ice = fixture('gcc-12-ice-assertion');
    const s = crashSignature(ice, 'gcc', 'gcc')!;
    expect(s.kind).toBe('ice');
    expect(s.key).toBe('internal compiler error: in regstat_free_n_sets_and_refs, at regstat.cc');
    expect(s.pass).toBe('RTL pass: reload');
    // gcc 16 prints its own frames and the cc1 command line: the same bucket.
    const j12 = judge('gcc-12', 'gcc', '-O2 -fdisable-rtl-ira', ice);
    const j16 = judge('gcc-16', 'gcc', '-O1 -fdisable-rtl-ira', fixture('gcc-16-ice-assertion'));
    expect(j16.bucket).toBe(j12.bucket);
    expect(j12.bucket).toBe(`compiler-crash:gcc:${s.key}`);
    // Another line number, source path and pass instance: still one bucket.
    const moved = ice
      .replace('regstat.cc:88', '../../src/gcc/regstat.cc:99999')
      .replace('during RTL pass: reload', 'during RTL pass: reload2');
    expect(judge('gcc-13', 'gcc', '-O3', moved).bucket).toBe(j12.bucket);
    // Another assertion of the same compiler is another bucket.
    expect(judge('gcc-12', 'gcc', '-O2 -fdisable-rtl-reload', fixture('gcc-12-ice-reload')).bucket).toBe(
      'compiler-crash:gcc:internal compiler error: in regstat_init_n_sets_and_refs, at regstat.cc',
    );
  });

  it('puts the target of a cross compiler in the family, and leaves other families their message keys', () => {
    const cross = judge('aarch64-linux-gnu-gcc-12', 'gcc', '-O2', fixture('gcc-snapshot-postreload-segv'), {
      target: 'aarch64',
    });
    expect(cross.bucket).toMatch(/^compiler-crash:gcc@aarch64:internal compiler error: Segmentation fault in get_addr/);
    expect(crashFamily({ family: 'tcc' })).toBeUndefined();
    const tccCompiler = { ...compiler('tcc', 'gcc'), family: 'tcc' as const };
    const r = judgeCompile(
      {
        status: 1,
        signal: null,
        stdout: '',
        stderr: 'prog.c:3: internal compiler error: in foo, at bar.c:12',
        timedOut: false,
        aborted: false,
        truncated: false,
        durationMs: 1,
      },
      buildMatrix([tccCompiler], ['-O0'])[0]!,
      false,
    )!;
    expect(r.bucket).toBe('compiler-crash:tcc:internal compiler error: in foo, at bar.c');
    // A gcc or clang killed without a report keeps the signal, per family.
    expect(judge('clang-23', 'clang', '-O2', '', { signal: 'SIGKILL' }).bucket).toBe('compiler-crash:clang:SIGKILL');
  });

  it('simplifies C++ symbols: no return type, argument list or template arguments, operators kept', () => {
    expect(
      simplifySymbol(
        'std::optional<llvm::PreservedAnalyses> llvm::PassManager<llvm::Loop, X<Y>>::runSinglePass<llvm::Loop>(a)',
      ),
    ).toBe('llvm::PassManager::runSinglePass');
    expect(simplifySymbol('(anonymous namespace)::X86DAGToDAGISel::Select(llvm::SDNode*)')).toBe(
      '(anonymous)::X86DAGToDAGISel::Select',
    );
    expect(simplifySymbol('llvm::APInt::operator<<=(unsigned int)')).toBe('llvm::APInt::operator<<=');
    expect(simplifySymbol('get_addr(rtx_def*)')).toBe('get_addr');
  });

  it('reads a hostile 256 KiB stack dump in linear time', { timeout: 20_000 }, () => {
    const frames = Array.from(
      { length: 4000 },
      (_, i) => ` #${i} 0x00007f0000000000 ${'a<'.repeat(30)}f(${'('.repeat(20)}`,
    );
    const text = `Stack dump:\n${frames.join('\n')}\n${'x<'.repeat(128 << 10)}\n`;
    const started = Date.now();
    expect(crashSignature(text, 'clang', 'clang')).toBeDefined();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('the signature check of repro.sh', () => {
  const work = mkdtempSync(join(tmpdir(), 'kiln-signature-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const check = (needles: readonly string[], report: string): number | null => {
    const file = join(work, 'compile.log');
    writeFileSync(file, report);
    return spawnSync('sh', ['-c', signatureShell(needles, file)], { encoding: 'utf8' }).status;
  };

  it('finds every needle of a report in that report, and not all of them in another bug’s report', () => {
    for (const [name, other] of [
      ['clang-22-loop-deletion', 'clang-22-vectorize-remark'],
      ['clang-23-loop-deletion', 'clang-16-vectorize-remark'],
      ['clang-16-vectorize-remark', 'clang-21-loop-deletion'],
      ['gcc-snapshot-postreload-segv', 'gcc-12-ice-assertion'],
      ['gcc-12-ice-assertion', 'gcc-12-ice-reload'],
      ['gcc-16-ice-assertion', 'gcc-12-ice-reload'],
    ] as const) {
      const family = name.startsWith('gcc') ? 'gcc' : 'clang';
      const s = crashSignature(fixture(name), family, family)!;
      expect(s.needles.length, name).toBeGreaterThan(0);
      expect(check(s.needles, fixture(name)), name).toBe(0);
      expect(check(s.needles, fixture(other)), `${name} against ${other}`).toBe(1);
    }
    // One version's needles find the same bug in another version's report.
    const s22 = crashSignature(fixture('clang-22-loop-deletion'), 'clang', 'clang')!;
    expect(check(s22.needles, fixture('clang-23-loop-deletion'))).toBe(0);
    const s12 = crashSignature(fixture('gcc-12-ice-assertion'), 'gcc', 'gcc')!;
    expect(check(s12.needles, fixture('gcc-16-ice-assertion'))).toBe(0);
  });

  it('wants the needles in order, and quotes them so that no text of the report runs', () => {
    expect(check(['b', 'a'], 'a\nb\n')).toBe(1);
    expect(check(['a', 'b'], 'a\nb\n')).toBe(0);
    expect(check(["it's $(touch INJECTED)"], "it's $(touch INJECTED)\n")).toBe(0);
    expect(spawnSync('ls', [work], { encoding: 'utf8' }).stdout).not.toContain('INJECTED');
  });
});

describe('the stderr a crash finding keeps', () => {
  it('keeps the whole crash report after 70 KB of warnings, and only head and tail of other output', () => {
    const warnings = "prog.c:53:84: warning: overflow in conversion from 'int' [-Woverflow]\n".repeat(1000);
    const report = fixture('clang-22-loop-deletion');
    const kept = excerpt(warnings + report, true);
    expect(kept.endsWith(report)).toBe(true);
    expect(kept).toContain('llvm::breakLoopBackedge');
    expect(kept).toContain('Running pass "loop(loop-idiom,indvars,loop-deletion,loop-unroll-full)" on function "n"');
    expect(kept.length).toBeLessThan(report.length + 2_000);
    // Not a crash: head and tail only.
    expect(excerpt(warnings + report, false).length).toBeLessThan(4_200);
  });
});
