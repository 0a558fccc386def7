// Generated interestingness scripts: crash signatures, and the wrong-code script's UB guards.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../../../src/harness/process.js';
import {
  crashScript,
  DEFER_GUARDS_VAR,
  iceSignature,
  probeCrash,
  probeWrongCodeGuards,
  semanticFlags,
  shq,
  wrongCodeScript,
} from '../../../src/reduce/text/scripts.js';

const fixtures = new URL('./fixtures/', import.meta.url).pathname;
/** `kiln check` from these sources, as the CLI writes it into a script (node, tsx loader, entry). */
const KILN_CHECK = [
  process.execPath,
  '--import',
  pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href,
  fileURLToPath(new URL('../../../src/cli/main.ts', import.meta.url)),
  'check',
]
  .map(shq)
  .join(' ');
const ring = readFileSync(join(fixtures, 'ring.c'), 'utf8');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kiln-scripts-test-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a generated script the way a reducer does: in a fresh directory holding `ring.c`. */
async function verdict(scriptText: string, source: string, env: Record<string, string> = {}): Promise<boolean> {
  const run = mkdtempSync(join(dir, 'run-'));
  writeFileSync(join(run, 'ring.c'), source);
  const script = join(run, 'test.sh');
  writeFileSync(script, scriptText);
  chmodSync(script, 0o755);
  const r = await runProcess(script, [], { cwd: run, timeoutMs: 60_000, env });
  return r.status === 0;
}

describe('crash signatures', () => {
  it('drops the moving location prefix and escapes the rest (GCC ICE)', () => {
    const out =
      "ring.c: In function 'main':\nring.c:12:7: internal compiler error: in fold_binary_loc, at " +
      'fold-const.cc:9876\n0x7f3a2b in foo\n';
    expect(iceSignature(out)).toBe('internal compiler error: in fold_binary_loc, at fold-const\\.cc:9876');
  });

  it('uses an assertion line, generalising addresses (Clang)', () => {
    const out = 'clang: /src/llvm/lib/IR/Value.cpp:42: void f(): Assertion `V && "x"\' failed.\nStack dump:\n';
    expect(iceSignature(out)).toContain('Assertion `V && "x"\' failed\\.');
  });

  it('finds no signature in an ordinary error', () => {
    expect(iceSignature("ring.c:3:1: error: expected ';'")).toBeNull();
  });

  it('keeps the flags that change meaning (includes, macros, standard)', () => {
    expect(semanticFlags('gcc -O2 -I/usr/include/csmith -DNDEBUG -std=c99 -include x.h -Wall')).toEqual([
      '-I/usr/include/csmith',
      '-DNDEBUG',
      '-std=c99',
      '-include',
      'x.h',
    ]);
  });
});

describe('--crash script', () => {
  it('is interesting iff the compiler crashes with the original signature', async () => {
    const cc = join(fixtures, 'fake-ice-cc.sh');
    const probe = await probeCrash(cc, 'ring.c', ring, 30_000);
    expect(probe.crashed).toBe(true);
    expect(probe.signature).toBe('internal compiler error: in fold_xor_loop, at fake-fold\\.c:1234');
    const script = crashScript({ fileName: 'ring.c', compiler: cc, match: probe.signature });
    expect(await verdict(script, ring)).toBe(true);
    // No do-while: no crash.
    expect(await verdict(script, ring.replace(/do \{([\s\S]*?)\} while \(c > 0u\);/, 'while (c > 0u) {$1}'))).toBe(
      false,
    );
    // A syntax error is an ordinary error, not a crash.
    expect(await verdict(script, `${ring}\nint broken(\n`)).toBe(false);
    // Another crash signature does not count.
    expect(await verdict(crashScript({ fileName: 'ring.c', compiler: cc, match: 'in other_function' }), ring)).toBe(
      false,
    );
  });
});

describe('--wrong-code guards', () => {
  it('drops a warning the original triggers, with gcc and with clang', async () => {
    // Two unsequenced writes in code that never runs: defined behaviour, but both compilers warn.
    const dead = 'int g;\nint main(void) {\n  if (g) g = (g += 1) + 1;\n  return 0;\n}\n';
    const guards = await probeWrongCodeGuards('dead.c', dead, []);
    expect(guards.clangErrors).not.toContain('unsequenced');
    expect(guards.dropped).toContain('clang:unsequenced (fires on the original)');
    expect(guards.gccErrors.length).toBeGreaterThan(0);
    expect(guards.dropped).not.toContain('clang:uninitialized (fires on the original)');
  });
});

describe('--wrong-code script', () => {
  it('accepts the miscompiled original, rejects UB variants and correct compilations', async () => {
    const failing = join(fixtures, 'fake-wrong-cc.sh');
    const guards = await probeWrongCodeGuards('ring.c', ring, []);
    expect(guards.clangErrors).toContain('uninitialized');
    const script = wrongCodeScript({
      fileName: 'ring.c',
      failing,
      reference: 'gcc -O0 -w',
      cflags: [],
      ...guards,
      runTimeoutS: 5,
    });
    expect(await verdict(script, ring)).toBe(true);
    const uninitialised = ring.replace('for (k = 0; k < 20u; k++)', 'for (; k < 20u; k++)');
    const outOfBounds = ring.replace('unsigned v = r->vals[r->head];', 'unsigned v = r->vals[r->head + RING];');
    // A naive test (outputs differ) would accept both UB variants: the reduction drift C-Reduce warns about.
    const naive = `#!/bin/sh\n${failing} ring.c -o f && gcc -O0 -w ring.c -o r || exit 1\n[ "$(./f)" != "$(./r)" ]\n`;
    expect(await verdict(naive, uninitialised)).toBe(true);
    expect(await verdict(naive, outOfBounds)).toBe(true);
    // The guarded test rejects them: the warning guard catches the uninitialised read…
    expect(await verdict(script, uninitialised)).toBe(false);
    // …and UBSan the out-of-bounds index at run time.
    expect(await verdict(script, outOfBounds)).toBe(false);
    // No `^=` left: the failing compiler is right, so nothing to see.
    expect(await verdict(script, ring.replace('checksum ^= value', 'checksum += value'))).toBe(false);
    // An uninitialised read through a pointer passes the warnings and ASan+UBSan (the value does
    // not reach the output); 'kiln check' as the last guard (MSan, valgrind, Eva) rejects it.
    const hidden = ring
      .replace(
        'static unsigned scale(',
        '__attribute__((noinline)) static int peek(unsigned *p) { return *p == 12345u; }\n\nstatic unsigned scale(',
      )
      .replace(
        '  unsigned t = a * 3u + b;',
        '  unsigned junk;\n  unsigned t = a * 3u + b;\n  if (peek(&junk)) t = 0u;',
      );
    const checked = wrongCodeScript({
      fileName: 'ring.c',
      failing,
      reference: 'gcc -O0 -w',
      cflags: [],
      ...guards,
      msan: false,
      check: KILN_CHECK,
      runTimeoutS: 5,
    });
    expect(checked).toContain("'check' --tools msan,valgrind,eva");
    expect(await verdict(checked, ring)).toBe(true);
    expect(await verdict(checked, hidden)).toBe(false);
    // With the last guard deferred (how the reducer judges candidates), steps 1-3 alone accept it.
    expect(await verdict(checked, hidden, { [DEFER_GUARDS_VAR]: '1' })).toBe(true);
    expect(await verdict(checked, ring, { [DEFER_GUARDS_VAR]: '1' })).toBe(true);
    // With --expected instead of a reference compiler.
    const expected = wrongCodeScript({
      fileName: 'ring.c',
      failing,
      expected: 'checksum = 2330490301',
      cflags: [],
      ...guards,
      runTimeoutS: 5,
    });
    expect(await verdict(expected, ring)).toBe(true);
  });

  it("keeps the crash report's own signature: another crash of the same compiler is not interesting", async () => {
    // A fake clang that prints a real loop-deletion report for programs with a `do` loop and a
    // real vectoriser report for the others with a `while`, and compiles the rest.
    const crash = join(import.meta.dirname, '..', '..', 'harness', 'fixtures', 'crash');
    const cc = join(dir, 'fake-clang.sh');
    writeFileSync(
      cc,
      [
        '#!/bin/sh',
        'for a; do case $a in *.c) src=$a;; esac; done',
        `if grep -q 'do {' "$src"; then cat ${shq(join(crash, 'clang-22-loop-deletion.txt'))} >&2; exit 1; fi`,
        `if grep -q 'while' "$src"; then cat ${shq(join(crash, 'clang-22-vectorize-remark.txt'))} >&2; exit 1; fi`,
        'exit 0',
        '',
      ].join('\n'),
    );
    chmodSync(cc, 0o755);
    const probe = await probeCrash(cc, 'ring.c', ring, 30_000);
    expect(probe.report?.key).toBe('LoopDeletionPass: llvm::breakLoopBackedge < llvm::LoopDeletionPass::run');
    const script = crashScript({ fileName: 'ring.c', compiler: cc, match: '', needles: probe.report!.needles });
    expect(script).toContain(
      "# The crash's signature, in this order: llvm::breakLoopBackedge | llvm::LoopDeletionPass::run",
    );
    expect(await verdict(script, ring)).toBe(true);
    // The vectoriser's crash is another bug, and a clean compile no crash.
    const loop = ring.replace(/do \{([\s\S]*?)\} while \(c > 0u\);/, 'while (c > 0u) {$1}');
    expect(await verdict(script, loop)).toBe(false);
    expect(await verdict(script, 'int main(void) { return 0; }\n')).toBe(false);
  });
});
