// ISA levels as configurations (src/harness/isa.ts), and the options Kiln adds to keep them exact
// (src/harness/matrix.ts, withImplicitOptions): -ffp-contract=off where the ISA has FMA, lld for
// clang's LTO.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/gen/policy.js';
import { resolveCompiler } from '../../src/harness/compilers.js';
import { testConfiguration } from '../../src/harness/execute.js';
import { ISA_LEVELS, probeIsa, withIsaProbes } from '../../src/harness/isa.js';
import { buildMatrix } from '../../src/harness/matrix.js';
import { campaignFiles } from '../../src/harness/program.js';
import { runProcess } from '../../src/harness/process.js';
import { TempRoot } from '../../src/harness/tempdir.js';
import { generateProgram } from '../../src/repair/generate.js';
import { requireTool } from '../support/cc.js';
import { runKiln } from './support/cli.js';

const LIMITS = {
  compile: { timeoutMs: 120_000, memoryMb: undefined },
  run: { timeoutMs: 20_000, memoryMb: undefined },
};

let work: string;
let temp: TempRoot;

beforeAll(() => {
  requireTool('gcc');
  requireTool('clang-16');
  work = mkdtempSync(join(tmpdir(), 'kiln-isa-'));
  temp = TempRoot.create();
});

afterAll(() => {
  temp?.dispose();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A gcc whose binaries for one -march die of SIGILL, as on a machine without that ISA. */
function fakeOldCpu(march: string): string {
  mkdirSync(join(work, 'bin'), { recursive: true });
  const path = join(work, 'bin', `gcc-old-cpu-${march}`);
  writeFileSync(
    path,
    `#!/bin/sh
out=; prev=; hit=
for a; do [ "$prev" = -o ] && out=$a; [ "$a" = "-march=${march}" ] && hit=1; prev=$a; done
gcc "$@" || exit $?
if [ -n "$hit" ] && [ -n "$out" ]; then printf '#!/bin/sh\\nkill -ILL $$\\n' > "$out"; chmod +x "$out"; fi
`,
  );
  chmodSync(path, 0o755);
  return path;
}

describe('the ISA probe', () => {
  it('runs each level on this machine, built for that level, with gcc and clang', async () => {
    for (const name of ['gcc', 'clang-16']) {
      const c = await resolveCompiler(name);
      const built = { 'x86-64-v2': 'sse4.2', 'x86-64-v3': 'avx2', 'x86-64-v4': 'avx512' } as Record<string, string>;
      for (const level of ISA_LEVELS) {
        const p = await probeIsa(c, [`-march=${level}`]);
        // The machines Kiln's tests run on have AVX-512; a level they lack would be compile-only.
        expect(p.kind, `${name} ${level}`).toBe('runs');
        if (p.kind === 'runs' && level !== 'native') expect(p.built).toBe(built[level]);
      }
    }
  });

  it('makes a configuration whose binaries die here compile-only, and its tests only compile', async () => {
    const c = await resolveCompiler(fakeOldCpu('x86-64-v4'));
    const p = await probeIsa(c, ['-march=x86-64-v4']);
    expect(p).toMatchObject({ kind: 'compile-only', built: 'avx512' });
    expect(p.kind === 'compile-only' && p.reason).toMatch(/SIGILL/);
    const [v3, v4] = await withIsaProbes(buildMatrix([c], ['-O2 -march=x86-64-v3', '-O2 -march=x86-64-v4']));
    expect(v3!.compileOnly).toBeUndefined();
    expect(v4!.compileOnly).toMatch(/-march=x86-64-v4: its binaries die of SIGILL/);
    const r = await testConfiguration('int main(void) { return 0; }\n', 'never printed', v4!, LIMITS, temp);
    expect(r.judgement.outcome).toBe('ok');
    expect(r.run).toBeUndefined();
    const ran = await testConfiguration('int main(void) { return 0; }\n', 'never printed', v3!, LIMITS, temp);
    expect(ran.judgement.outcome).toBe('wrong-code');
  });

  it('kiln compilers says which levels run here and marks the compile-only ones', async () => {
    const fake = fakeOldCpu('x86-64-v3');
    const r = await runKiln(['compilers', 'gcc', fake]);
    expect(r.status, r.stderr).toBe(0);
    const [gccPart, fakePart] = r.stdout.split(/\n(?=gcc-old-cpu)/);
    expect(gccPart).toMatch(/ISA levels: x86-64-v2, x86-64-v3, x86-64-v4, native=avx512 \(all run here\)/);
    expect(fakePart).toMatch(
      /ISA levels: x86-64-v2, x86-64-v3 \(compile-only: its binaries die of SIGILL here\), x86-64-v4, /,
    );
    const json = JSON.parse((await runKiln(['compilers', '--json', fake])).stdout) as {
      isa: Record<string, { kind: string }>;
    }[];
    expect(json[0]!.isa['x86-64-v3']!.kind).toBe('compile-only');
    expect(json[0]!.isa['x86-64-v4']!.kind).toBe('runs');
  });

  it('refuses an -march the compiler does not know, with a coded error', async () => {
    const gcc = await resolveCompiler('gcc');
    await expect(withIsaProbes(buildMatrix([gcc], ['-O2 -march=x86-64-v9']))).rejects.toMatchObject({
      code: 'KILN_BAD_OPTION',
      message: expect.stringMatching(/-march=x86-64-v9/),
    });
  });
});

describe('options Kiln adds', () => {
  it('pins -ffp-contract=off where the ISA may have FMA, and links clang LTO with lld', async () => {
    const gcc = await resolveCompiler('gcc');
    const clang = await resolveCompiler('clang-16');
    const [plain, v2, v3, native, fma] = buildMatrix(
      [gcc],
      ['-O2', '-O2 -march=x86-64-v2', '-O2 -march=x86-64-v3', '-O3 -march=native', '-O2 -ffp-contract=on -mfma'],
    );
    expect(plain!.optionsText).toBe('-O2');
    expect(v2!.optionsText).toBe('-O2 -march=x86-64-v2');
    expect(v3!.optionsText).toBe('-O2 -march=x86-64-v3 -ffp-contract=off');
    expect(native!.optionsText).toBe('-O3 -march=native -ffp-contract=off');
    expect(fma!.optionsText).toBe('-O2 -ffp-contract=on -mfma');
    const [lto, ltoGcc] = [...buildMatrix([clang], ['-O2 -flto']), ...buildMatrix([gcc], ['-O2 -flto'])];
    expect(lto!.optionsText).toBe('-O2 -flto -fuse-ld=lld');
    expect(ltoGcc!.optionsText).toBe('-O2 -flto');
  });

  it('keeps an arith program full of a*b + c exact at -O2 -march=x86-64-v3, on gcc and clang', async () => {
    // Every input floating, only * and +: products summed, the shape FMA contraction fuses.
    const zero = Object.fromEntries(
      ['-', '/', '%', '<<', '>>', '&', '|', '^', '<', '>', '<=', '>=', '==', '!=', '&&', '||'].map((o) => [o, 0]),
    );
    const policy = parsePolicy({
      arith: {
        floatPrograms: 1,
        floatShare: 1,
        cast: 0,
        maxExprs: 12,
        maxOps: 40,
        operators: { ...zero, '+': 1, '*': 1 },
      },
    });
    let checked = 0;
    for (let seed = 1; checked < 3 && seed < 40; seed++) {
      const g = generateProgram(String(seed), policy, 'arith');
      if (!g.ok) continue;
      const files = campaignFiles(g, policy);
      const text = files.map((f) => f.content).join('\n');
      if ((text.match(/double|float/g) ?? []).length < 5) continue;
      checked++;
      for (const name of ['gcc', 'clang-16']) {
        const cc = await resolveCompiler(name);
        const [config] = buildMatrix([cc], ['-O2 -march=x86-64-v3']);
        expect(config!.options).toContain('-ffp-contract=off');
        const r = await testConfiguration(files, g.expected, config!, LIMITS, temp);
        expect(r.judgement.outcome, `${name} seed ${seed}: ${r.judgement.detail ?? ''}`).toBe('ok');
        // The flag is what keeps the code unfused: gcc contracts the same program without it.
        const dir = await temp.dir('asm');
        writeFileSync(join(dir, 'prog.c'), files[0]!.content);
        const asm = async (extra: string[]): Promise<string> => {
          const out = await runProcess(cc.command, [...config!.options, ...extra, '-S', 'prog.c', '-o', 'prog.s'], {
            cwd: dir,
            timeoutMs: 120_000,
          });
          expect(out.status).toBe(0);
          return readFileSync(join(dir, 'prog.s'), 'utf8');
        };
        expect(await asm([])).not.toMatch(/vfn?m(add|sub)/);
        if (name === 'gcc') expect(await asm(['-ffp-contract=fast'])).toMatch(/vfn?m(add|sub)/);
      }
    }
    expect(checked).toBe(3);
  });
});
