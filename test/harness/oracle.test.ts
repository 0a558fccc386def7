import { describe, expect, it } from 'vitest';
import { crashMessage, errorMessage, looksLikeCrash, normaliseMessage } from '../../src/harness/bucket.js';
import type { Compiler } from '../../src/harness/compilers.js';
import { buildMatrix } from '../../src/harness/matrix.js';
import { internalDisagreement, judgeCompile, judgeRun, type ObservedRun } from '../../src/harness/oracle.js';
import type { RunResult } from '../../src/harness/process.js';

const GCC: Compiler = {
  name: 'gcc',
  command: '/usr/bin/gcc',
  realPath: '/usr/bin/gcc-12',
  family: 'gcc',
  version: 'gcc 12',
};
const [C_O2] = buildMatrix([GCC], ['-O2']);
const config = C_O2!;

function result(p: Partial<RunResult>): RunResult {
  return {
    status: 0,
    signal: null,
    stdout: '',
    stderr: '',
    timedOut: false,
    aborted: false,
    truncated: false,
    durationMs: 1,
    ...p,
  };
}

// biome-ignore format: embedded text
const GCC_ICE_A = `/tmp/kiln-fuzz-4411-AbCdEf/cc-x1y2z3/prog.c: In function 'func_3':
/tmp/kiln-fuzz-4411-AbCdEf/cc-x1y2z3/prog.c:45:12: internal compiler error: in vect_get_vec_defs_for_operand, at tree-vect-stmts.cc:1509
during GIMPLE pass: vect
0x7f1a2b3c4d5e vect_get_vec_defs_for_operand(vec_info*, _stmt_vec_info*, unsigned int, tree_node*, vec<tree_node*, va_heap, vl_ptr>*, tree_node*)
	/build/gcc-12-abc/src/gcc/tree-vect-stmts.cc:1509
Please submit a full bug report, with preprocessed source (by using -freport-bug).`;

// biome-ignore format: embedded text
const GCC_ICE_B = `/tmp/kiln-fuzz-977-QwErTy/cc-a9b8c7/prog.c: In function 'func_12':
/tmp/kiln-fuzz-977-QwErTy/cc-a9b8c7/prog.c:311:5: internal compiler error: in vect_get_vec_defs_for_operand, at tree-vect-stmts.cc:1511
during GIMPLE pass: vect2
0x55d3e2f1 vect_get_vec_defs_for_operand(vec_info*, _stmt_vec_info*, unsigned int, tree_node*, vec<tree_node*, va_heap, vl_ptr>*, tree_node*)
	/usr/src/gcc/tree-vect-stmts.cc:1511`;

const GCC_SEGV = `prog.c: In function 'main':
prog.c:88:1: internal compiler error: Segmentation fault
   88 | }
during RTL pass: expand
0xe35f3f crash_signal
	../../src/gcc/toplev.cc:314`;

// biome-ignore format: embedded text
const clangCrash = (
  fn: string,
  file: string,
): string => `PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the crash backtrace, preprocessed source, and associated run script.
Stack dump:
0.	Program arguments: /usr/lib/llvm-14/bin/clang -cc1 -triple x86_64-pc-linux-gnu -O2 ${file}
1.	<eof> parser at end of file
2.	Code generation
3.	Running pass 'Function Pass Manager' on module '${file}'.
4.	Running pass 'X86 DAG->DAG Instruction Selection' on function '@${fn}'
 #0 0x00007f5e8c1a2b3c llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/lib/libLLVM-14.so.1+0xe8b3c)
clang: error: clang frontend command failed with exit code 139 (use -v to see invocation)
clang: note: diagnostic msg: /tmp/prog-4f2a1b.c`;

describe('crash signatures', () => {
  it('recognises compiler crashes and not ordinary errors', () => {
    expect(looksLikeCrash(GCC_ICE_A)).toBe(true);
    expect(looksLikeCrash(GCC_SEGV)).toBe(true);
    expect(looksLikeCrash(clangCrash('func_1', 'prog.c'))).toBe(true);
    expect(looksLikeCrash("prog.c:3:1: error: expected ';' before '}' token")).toBe(false);
    expect(looksLikeCrash('gcc: fatal error: Killed signal terminated program cc1')).toBe(true);
    expect(looksLikeCrash('cc1: out of memory allocating 4072 bytes after a total of 2130341888 bytes')).toBe(true);
    expect(crashMessage('cc1: out of memory allocating 4072 bytes after a total of 2130341888 bytes')).toEqual({
      raw: 'out of memory',
      key: 'out of memory',
    });
  });

  it('gives one key to one ICE seen in different programs, folders and compiler builds', () => {
    const a = crashMessage(GCC_ICE_A);
    const b = crashMessage(GCC_ICE_B);
    expect(a.key).toBe(b.key);
    expect(a.key).toBe(
      'during GIMPLE pass: vect | internal compiler error: in vect_get_vec_defs_for_operand, at tree-vect-stmts.cc',
    );
    // The raw text is what a repro script greps for: it occurs verbatim in the diagnostics.
    expect(GCC_ICE_A).toContain(a.raw);
  });

  it('keeps different ICEs apart', () => {
    expect(crashMessage(GCC_SEGV).key).toBe('during RTL pass: expand | internal compiler error: Segmentation fault');
    expect(crashMessage(GCC_SEGV).key).not.toBe(crashMessage(GCC_ICE_A).key);
  });

  it('keys a clang crash by its last stack-dump frame, without function names or temp files', () => {
    const a = crashMessage(clangCrash('func_1', '/tmp/kiln-fuzz-1-aaaaaa/cc-bbbbbb/prog.c'));
    const b = crashMessage(clangCrash('func_27', '/tmp/kiln-fuzz-2-cccccc/cc-dddddd/prog.c'));
    expect(a.key).toBe(b.key);
    expect(a.key).toBe("Running pass 'X86 DAG->DAG Instruction Selection' on function '@'");
  });

  it('prefers an assertion message to the stack dump', () => {
    const text =
      `clang: /build/llvm-14/llvm/lib/CodeGen/SelectionDAG/DAGCombiner.cpp:1213: llvm::SDValue ` +
      `{anonymous}::DAGCombiner::foo(): Assertion \`N.getNode()' failed.\n${clangCrash('func_2', 'prog.c')}`;
    expect(crashMessage(text).key).toBe("Assertion `N.getNode()' failed.");
  });

  it('normalises paths, locations, addresses, temp names and generated identifiers', () => {
    expect(normaliseMessage('/a/b/c/file.c:12:5: error at 0xdeadbeef in func_12 (g_45) /tmp/ccAbC123.s')).toBe(
      'file.c: error at 0x in func_ (g_) <tmp>',
    );
    expect(errorMessage("prog.c:3:1: error: expected ';' before '}' token\n").key).toBe(
      "error: expected ';' before '}' token",
    );
  });
});

describe('judging compiles and runs', () => {
  it('skips a swarm test whose drawn flags the driver refuses together, and only that', () => {
    const stderr = "cc1: error: '-fipa-ra' is incompatible with '-flive-patching=inline-clone'\n";
    const swarmed = { ...config, swarm: { max: 8, catalogue: ['-fipa-ra'], drawn: ['-fipa-ra'] } };
    expect(judgeCompile(result({ status: 1, stderr }), swarmed, false)).toMatchObject({
      outcome: 'skipped',
      detail: "the drawn flags conflict: '-fipa-ra' is incompatible with '-flive-patching=inline-clone'",
    });
    // Without a draw, the options are the user's: the refusal is a finding to look at.
    expect(judgeCompile(result({ status: 1, stderr }), config, false)).toMatchObject({ outcome: 'rejected-valid' });
    // A program the compiler rejects under a swarm is still a finding.
    const program = "prog.c:3:1: error: expected ';' before '}' token\n";
    expect(judgeCompile(result({ status: 1, stderr: program }), swarmed, false)).toMatchObject({
      outcome: 'rejected-valid',
    });
  });

  it('classifies compiler outcomes', () => {
    expect(judgeCompile(result({}), config, true)).toBeUndefined();
    expect(judgeCompile(result({ timedOut: true, status: null, signal: 'SIGKILL' }), config, false)).toMatchObject({
      outcome: 'compiler-hang',
      bucket: 'compiler-hang:gcc',
    });
    expect(judgeCompile(result({ status: null, signal: 'SIGSEGV' }), config, false)).toMatchObject({
      outcome: 'compiler-crash',
      bucket: 'compiler-crash:gcc:SIGSEGV',
      signal: 'SIGSEGV',
    });
    expect(judgeCompile(result({ status: 1, stderr: GCC_SEGV }), config, false)).toMatchObject({
      outcome: 'compiler-crash',
      // No GCC function in its backtrace: the pass it crashed in names it (src/harness/signature.ts).
      bucket: 'compiler-crash:gcc:internal compiler error: Segmentation fault during RTL pass: expand',
      match: 'internal compiler error: Segmentation fault',
      signature: ['internal compiler error: Segmentation fault', 'during RTL pass: expand'],
    });
    expect(
      judgeCompile(result({ status: 1, stderr: "prog.c:3:1: error: expected ';' before '}' token" }), config, false),
    ).toMatchObject({
      outcome: 'rejected-valid',
      bucket: "rejected-valid:gcc:error: expected ';' before '}' token",
    });
    expect(judgeCompile(result({ status: 0 }), config, false)).toMatchObject({ outcome: 'rejected-valid' });
  });

  it('classifies binary outcomes against the expected line', () => {
    const exp = 'checksum = 0123456789ABCDEF';
    expect(judgeRun(result({ stdout: `${exp}\n` }), exp, config)).toEqual({ outcome: 'ok' });
    expect(judgeRun(result({ stdout: 'checksum = 0123456789ABCDEE\n' }), exp, config)).toMatchObject({
      outcome: 'wrong-code',
      bucket: 'wrong-code:gcc:-O2',
    });
    expect(judgeRun(result({ stdout: '' }), exp, config)).toMatchObject({ outcome: 'wrong-code' });
    expect(judgeRun(result({ timedOut: true, status: null, signal: 'SIGKILL' }), exp, config)).toMatchObject({
      outcome: 'binary-hang',
      bucket: 'binary-hang:gcc:-O2',
    });
    expect(judgeRun(result({ status: null, signal: 'SIGFPE' }), exp, config)).toMatchObject({
      outcome: 'binary-crash',
      bucket: 'binary-crash:gcc:SIGFPE',
    });
    expect(judgeRun(result({ status: 3, stdout: `${exp}\n` }), exp, config)).toMatchObject({
      outcome: 'binary-crash',
      bucket: 'binary-crash:gcc:exit 3',
      exitStatus: 3,
    });
    expect(judgeRun(result({ status: 139 }), exp, config)).toMatchObject({
      outcome: 'binary-crash',
      bucket: 'binary-crash:gcc:SIGSEGV',
    });
  });

  it('blames the interpreter only when every configuration that ran agrees against it', () => {
    const exp = 'checksum = 1';
    const ran = (output: string): ObservedRun => ({
      judgement: { outcome: output === exp ? 'ok' : 'wrong-code' },
      output,
    });
    const crashed: ObservedRun = { judgement: { outcome: 'binary-crash' } };
    expect(internalDisagreement(exp, [ran('checksum = 2'), ran('checksum = 2'), crashed])).toBe('checksum = 2');
    expect(internalDisagreement(exp, [ran('checksum = 2'), ran(exp)])).toBeUndefined();
    expect(internalDisagreement(exp, [ran('checksum = 2'), ran('checksum = 3')])).toBeUndefined();
    // A single configuration is tested against the interpreter alone: its mismatch is wrong code.
    expect(internalDisagreement(exp, [ran('checksum = 2'), crashed])).toBeUndefined();
  });
});
