// The target models of src/c/target.ts against the compilers: a probe compiled by each target's
// gcc 12 (the native gcc for x86-64, a cross gcc under its qemu otherwise) prints what the model
// claims — sizes, alignments, byte order, plain char's sign, and which classic type each
// exact-width <stdint.h> type names — and the test compares the two. The cross compilers are
// those of the test profile (scripts/ensure-tools.mjs): m68k, powerpc and s390x, three different
// ABIs (2-byte alignment; ILP32 with unsigned char; LP64 big-endian).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { targetByName, type TargetModel } from '../../src/c/target.js';
import { runProcess } from '../../src/harness/process.js';
import { requireTool } from '../support/cc.js';

/** The probe: one `key value` line per fact the model records. */
// biome-ignore format: embedded text
const PROBE = String.raw`#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#define TYPE_NAME(x) _Generic((x), signed char: "signed char", short: "short", int: "int", long: "long", long long: "long long", default: "other")
int main(void) {
  union { unsigned int word; unsigned char bytes[sizeof(unsigned int)]; } order = { 0x01020304u };
  printf("charBits %d\n", CHAR_BIT);
  printf("shortBits %d\n", (int)(sizeof(short) * CHAR_BIT));
  printf("intBits %d\n", (int)(sizeof(int) * CHAR_BIT));
  printf("longBits %d\n", (int)(sizeof(long) * CHAR_BIT));
  printf("longLongBits %d\n", (int)(sizeof(long long) * CHAR_BIT));
  printf("pointerBits %d\n", (int)(sizeof(void *) * CHAR_BIT));
  printf("charSigned %s\n", CHAR_MIN < 0 ? "true" : "false");
  printf("endian %s\n", order.bytes[0] == 1 ? "big" : order.bytes[0] == 4 ? "little" : "mixed");
  printf("align.short %d\n", (int)_Alignof(short));
  printf("align.int %d\n", (int)_Alignof(int));
  printf("align.long %d\n", (int)_Alignof(long));
  printf("align.longLong %d\n", (int)_Alignof(long long));
  printf("align.pointer %d\n", (int)_Alignof(void *));
  printf("align.double %d\n", (int)_Alignof(double));
  printf("stdint.8 %s\n", TYPE_NAME((int8_t)0));
  printf("stdint.16 %s\n", TYPE_NAME((int16_t)0));
  printf("stdint.32 %s\n", TYPE_NAME((int32_t)0));
  printf("stdint.64 %s\n", TYPE_NAME((int64_t)0));
  return 0;
}
`;

/** The facts of a model, as the probe prints them. */
function claimed(m: TargetModel): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [
    'charBits',
    'shortBits',
    'intBits',
    'longBits',
    'longLongBits',
    'pointerBits',
    'charSigned',
    'endian',
  ] as const)
    out[k] = String(m[k]);
  for (const [k, v] of Object.entries(m.align)) out[`align.${k}`] = String(v);
  for (const [k, v] of Object.entries(m.stdint)) out[`stdint.${k}`] = v;
  return out;
}

/** Parses the probe's `key value` lines. */
function parseProbe(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const at = line.indexOf(' ');
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

/** Each model checked, with the gcc 12 that builds for it and how its binaries run. */
const CHECKED: readonly { readonly model: string; readonly cc: string; readonly emulated: boolean }[] = [
  { model: 'x86_64', cc: 'gcc', emulated: false },
  { model: 'm68k', cc: 'm68k-linux-gnu-gcc-12', emulated: true },
  { model: 'powerpc', cc: 'powerpc-linux-gnu-gcc-12', emulated: true },
  { model: 's390x', cc: 's390x-linux-gnu-gcc-12', emulated: true },
];

const work = mkdtempSync(join(tmpdir(), 'kiln-models-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('target models against their compilers', () => {
  for (const { model: name, cc, emulated } of CHECKED) {
    it(`${name}: sizes, alignments, byte order, char sign and the stdint types are what ${cc} builds`, async () => {
      const model = targetByName(name);
      expect(model, `no model called ${name}`).toBeDefined();
      requireTool(cc);
      if (emulated) requireTool(model!.qemu);
      const dir = join(work, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'probe.c'), PROBE);
      const build = await runProcess(cc, ['-std=c11', '-O0', '-Wall', '-Werror', 'probe.c', '-o', 'probe'], {
        cwd: dir,
        timeoutMs: 120_000,
      });
      expect(build.status, build.stderr).toBe(0);
      const [cmd, ...args] = emulated ? [model!.qemu, '-L', `/usr/${model!.triplet}`, './probe'] : ['./probe'];
      const run = await runProcess(cmd!, args, { cwd: dir, timeoutMs: 120_000 });
      expect(run.status, run.stderr).toBe(0);
      expect(parseProbe(run.stdout)).toEqual(claimed(model!));
    }, 300_000);
  }

  it('the models checked differ where Kiln must tell them apart', () => {
    const models = CHECKED.map((c) => targetByName(c.model)!);
    // Both byte orders, both plain-char signs, both long widths, and both types of int64_t.
    expect(new Set(models.map((m) => m.endian))).toEqual(new Set(['little', 'big']));
    expect(new Set(models.map((m) => m.charSigned))).toEqual(new Set([true, false]));
    expect(new Set(models.map((m) => m.longBits))).toEqual(new Set([32, 64]));
    expect(new Set(models.map((m) => m.stdint[64]))).toEqual(new Set(['long', 'long long']));
  });
});
