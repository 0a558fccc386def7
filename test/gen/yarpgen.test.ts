// The yarpgen mode: deterministic, loop-free test functions, a UB-free program whose translation
// units keep init values away from the test code, and binaries that print exactly the expected
// line at every optimisation level of gcc and clang.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emitFiles, SPLIT_FILES, type EmittedFile } from '../../src/emit/files.js';
import { YARPGEN_INIT, YARPGEN_TEST_PREFIX, generateYarpgenRaw, isConstGlobal } from '../../src/gen/yarpgen.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { interpret } from '../../src/interp/interpret.js';
import type { Program } from '../../src/ir/nodes.js';
import { walk } from '../../src/ir/visit.js';
import { runProcess } from '../../src/harness/process.js';
import { generateProgram, type Generated } from '../../src/repair/generate.js';
import { requireTool } from '../support/cc.js';
import { mapPool } from '../support/pool.js';

const SMALL = parsePolicy({}, 'small');
const MEDIUM = parsePolicy({});

function gen(seed: number, policy = SMALL): Generated {
  const r = generateProgram(seed, policy, 'yarpgen');
  if (!r.ok) throw new Error(`yarpgen seed ${seed} discarded: ${r.reason}`);
  return r;
}

const files = (g: Generated): EmittedFile[] =>
  emitFiles(g.program, { expected: g.expected, header: [`seed ${g.seed}`] });
const file = (fs: readonly EmittedFile[], name: string): string => fs.find((f) => f.name === name)!.content;

describe('yarpgen mode: generation', () => {
  it('is deterministic: the same seed gives the same files, byte for byte; other seeds differ', () => {
    for (const seed of [1, 7, 19]) {
      const a = files(gen(seed, MEDIUM));
      gen(seed + 100, MEDIUM); // generation in between must not matter
      expect(files(gen(seed, MEDIUM))).toEqual(a);
    }
    expect(file(files(gen(1)), SPLIT_FILES.func)).not.toBe(file(files(gen(2)), SPLIT_FILES.func));
  });

  it('is deterministic across processes (no hidden state carried between programs)', () => {
    const here = JSON.stringify(files(gen(12, MEDIUM)));
    // biome-ignore format: embedded text
    const script = `import { generateProgram } from './src/repair/generate.ts'; import { emitFiles } from './src/emit/files.ts'; import { parsePolicy } from './src/gen/policy.ts';
const r = generateProgram(12, parsePolicy({}), 'yarpgen'); process.stdout.write(r.ok ? JSON.stringify(emitFiles(r.program, { expected: r.expected, header: ['seed 12'] })) : 'discarded');`;
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: process.cwd(),
      maxBuffer: 64 << 20,
    });
    expect(out.stderr).toBe('');
    expect(out.stdout).toBe(here);
  });

  it('marks the program and builds init, test functions and main', () => {
    const p = gen(5, MEDIUM).program;
    expect(p.meta.mode).toBe('yarpgen');
    const names = p.funcs.map((f) => f.name);
    expect(names[0]).toBe(YARPGEN_INIT);
    expect(names[names.length - 1]).toBe('main');
    expect(names.slice(1, -1).every((n) => n.startsWith(YARPGEN_TEST_PREFIX))).toBe(true);
    expect(names.length).toBeGreaterThanOrEqual(3);
    // Every global is a scalar, a one-dimensional array of integers or a vector, with external linkage.
    for (const g of p.globals) {
      expect(g.isStatic).toBeFalsy();
      const t = g.type.kind === 'array' ? g.type.of : g.type;
      expect(['int', 'vector']).toContain(t.kind);
    }
  });

  it('draws vector globals of every role with features.vectors (a stream of its own), none without', () => {
    const roles = new Set<string>();
    let whole = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const p = gen(seed, MEDIUM).program;
      for (const g of p.globals) if (g.type.kind === 'vector') roles.add(g.name.replace(/_\d+$/, ''));
      for (const f of p.funcs)
        walk(f.body, (n) => {
          if (n.kind === 'assign' && n.target.type.kind === 'vector') whole++;
        });
    }
    expect([...roles].sort()).toEqual(['in', 'out', 'var']);
    expect(whole).toBeGreaterThan(10);
    const off = parsePolicy({ features: { vectors: false } });
    for (const seed of [1, 2, 3]) {
      const p = gen(seed, off).program;
      expect(p.globals.some((g) => g.type.kind === 'vector')).toBe(false);
    }
  });

  it('keeps test functions loop-free and free of side effects inside expressions (over 60 seeds, after repair)', () => {
    const kinds = new Map<string, number>();
    for (let seed = 1; seed <= 60; seed++) {
      const p = gen(seed).program;
      for (const f of testFunctions(p)) {
        walk(f.body, (n) => {
          kinds.set(n.kind, (kinds.get(n.kind) ?? 0) + 1);
          // Assignments only as whole statements (checked below), never nested.
          if (n.kind === 'expr' && n.expr.kind === 'assign')
            walk(n.expr.value, (m) => void expect(['assign', 'incdec', 'call', 'comma']).not.toContain(m.kind));
        });
      }
    }
    for (const banned of [
      'for',
      'switch',
      'case',
      'goto',
      'label',
      'break',
      'continue',
      'call',
      'incdec',
      'comma',
      'deref',
      'addr',
    ])
      expect(kinds.get(banned) ?? 0, banned).toBe(0);
    // What the test functions are made of: assignments, ifs, new locals, operators of every kind.
    expect(kinds.get('if')).toBeGreaterThan(20);
    expect(kinds.get('assign')).toBeGreaterThan(100);
    expect(kinds.get('binary')).toBeGreaterThan(300);
    expect(kinds.get('index')).toBeGreaterThan(0);
  });

  it('assigns inputs only in init (or where const inputs are defined), and reads outputs only in main', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const p = gen(seed).program;
      const inputs = new Set(p.globals.filter((g) => g.name.startsWith('in_')).map((g) => g.id));
      const outputs = new Set(p.globals.filter((g) => g.name.startsWith('out_')).map((g) => g.id));
      for (const f of testFunctions(p)) {
        walk(f.body, (n) => {
          if (n.kind === 'assign') {
            let t = n.target;
            while (t.kind === 'index') t = t.base;
            if (t.kind === 'var') expect(inputs.has(t.decl), `seed ${seed}: input written in ${f.name}`).toBe(false);
            walk(
              n.value,
              (m) => void (m.kind === 'var' && expect(outputs.has(m.decl), `seed ${seed}: output read`).toBe(false)),
            );
            return false;
          }
          if (n.kind === 'var') expect(outputs.has(n.decl), `seed ${seed}: output read in ${f.name}`).toBe(false);
        });
      }
    }
  });

  it('gives programs the interpreter runs without UB, printing the expected line', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const g = gen(seed);
      const r = interpret(g.program);
      if (!r.ok) expect.unreachable(`seed ${seed}: ${r.ub.kind} at node ${r.ub.node}`);
      expect(r.output.trimEnd()).toBe(g.expected);
    }
  });

  it('needs the repair loop: many raw programs hit UB', () => {
    let rawUB = 0;
    for (let seed = 1; seed <= 30; seed++) if (!interpret(generateYarpgenRaw(seed, SMALL)).ok) rawUB++;
    expect(rawUB).toBeGreaterThan(5);
  });

  it('applies the generation policies: with every subtree in an operator context, comparisons almost vanish', () => {
    const policy = parsePolicy({ policies: { contexts: 1, allConstant: 0, halfConstant: 0, cse: 0.5 } }, 'small');
    const text = Array.from({ length: 10 }, (_, i) => file(files(gen(i + 1, policy)), SPLIT_FILES.func)).join('\n');
    const off = parsePolicy(
      {
        policies: {
          contexts: 0,
          allConstant: 0,
          halfConstant: 0,
          bitRunConstant: 0,
          reuseConstant: 0,
          cse: 0,
          shuffle: false,
          swarm: 0,
        },
      },
      'small',
    );
    const plain = Array.from({ length: 10 }, (_, i) => file(files(gen(i + 1, off)), SPLIT_FILES.func)).join('\n');
    // With every subtree in one context, comparisons (which no context contains) become rare.
    const cmp = (s: string): number => (s.match(/ (<|>|<=|>=|==|!=) /g) ?? []).length;
    expect(cmp(text) * 3).toBeLessThan(cmp(plain));
  });
});

describe('yarpgen mode: separate translation units', () => {
  it('keeps init values out of the test code: func.c and init.h hold no definition, initialiser or input store', () => {
    for (let seed = 1; seed <= 25; seed++) {
      const g = gen(seed);
      const fs = files(g);
      expect(fs.map((f) => f.name)).toEqual([
        SPLIT_FILES.header,
        SPLIT_FILES.init,
        SPLIT_FILES.func,
        SPLIT_FILES.driver,
      ]);
      const header = file(fs, SPLIT_FILES.header);
      const func = file(fs, SPLIT_FILES.func);
      const init = file(fs, SPLIT_FILES.init);
      const globals = g.program.globals.map((d) => d.name);
      for (const name of globals) {
        const decl = new RegExp(`^extern [^=;]* ${name}(\\[\\d+\\])?;$`, 'm');
        expect(header, `${name} declared extern`).toMatch(decl);
        // Defined once, in init.c only.
        expect(init).toMatch(new RegExp(`^(const )?[a-z0-9_ ]+ ${name}(\\[\\d+\\])?( = [^;]+)?;$`, 'm'));
        expect(func).not.toMatch(new RegExp(`^\\S[^(\\n]* ${name}(\\[\\d+\\])?( = |;)`, 'm'));
      }
      // No value reaches the header; the test unit never stores into an input.
      expect(header.replace(/\/\*[\s\S]*?\*\//g, '')).not.toMatch(/=/);
      expect(func).not.toMatch(/\bin_\d+(\[\d+\])? = /);
      // init() lives in init.c, main in driver.c.
      expect(init).toContain('void init(void)\n{');
      expect(func).not.toContain('void init(void)\n{');
      expect(func).not.toContain('main(');
      expect(file(fs, SPLIT_FILES.driver)).toContain('int main(void)\n{');
      // Every non-const input's value is stored in init(), and const ones are defined with theirs, in init.c.
      for (const d of g.program.globals.filter((x) => x.name.startsWith('in_'))) {
        if (isConstGlobal(d)) expect(init).toMatch(new RegExp(`^const [^;]* ${d.name}(\\[\\d+\\])? = `, 'm'));
        else expect(init).toMatch(new RegExp(`^    ${d.name}(\\[0\\])? = `, 'm'));
      }
    }
  });

  it('compiles each unit on its own (gcc -c -Wall, no warnings about missing declarations)', async () => {
    requireTool('gcc');
    const fs = files(gen(3, MEDIUM));
    const dir = mkdtempSync(join(tmpdir(), 'kiln-yarpgen-'));
    try {
      for (const f of fs) writeFileSync(join(dir, f.name), f.content);
      for (const unit of [SPLIT_FILES.init, SPLIT_FILES.func, SPLIT_FILES.driver]) {
        const r = await runProcess(
          'gcc',
          [
            '-std=c11',
            '-O1',
            '-c',
            '-Wmissing-declarations',
            '-Wimplicit-function-declaration',
            '-Werror=implicit-function-declaration',
            '-Werror=missing-declarations',
            unit,
          ],
          { cwd: dir, timeoutMs: 60_000 },
        );
        expect(r.status, `${unit}: ${r.stderr}`).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('yarpgen mode: differential test against gcc and clang', () => {
  // Compiler start-up dominates small compiles: the 40 programs are batched file by file (each
  // with its own prefix, globals and checksum), so each build is still init.c func.c driver.c
  // compiled separately, but six builds cover 40 programs x 2 compilers x 3 levels.
  it('40 programs, compiled as separate units at -O0 -O2 -O3, all print exactly the expected line', async () => {
    requireTool('gcc');
    requireTool('clang');
    const programs = Array.from({ length: 40 }, (_, i) => gen(1000 + i));
    const parts = programs.map((g, i) => emitFiles(g.program, { expected: g.expected, prefix: `p${i}_` }));
    const joined = (name: string): string => parts.map((fs) => file(fs, name)).join('\n');
    const root = mkdtempSync(join(tmpdir(), 'kiln-yarpgen-diff-'));
    try {
      writeFileSync(join(root, SPLIT_FILES.header), joined(SPLIT_FILES.header));
      writeFileSync(join(root, SPLIT_FILES.init), joined(SPLIT_FILES.init));
      writeFileSync(join(root, SPLIT_FILES.func), joined(SPLIT_FILES.func));
      const mains = programs.map((_, i) => `p${i}_main`);
      writeFileSync(
        join(root, SPLIT_FILES.driver),
        `${joined(SPLIT_FILES.driver)}\n${mains.map((m) => `int ${m}(void);`).join('\n')}\nint ` +
          `main(void)\n{\n${mains.map((m) => `    ${m}();`).join('\n')}\n    return 0;\n}\n`,
      );
      // The init values stay out of the batched func.c as well.
      expect(joined(SPLIT_FILES.func)).not.toMatch(/\bp\d+_in_\d+(\[\d+\])? = /);
      const builds = ['gcc', 'clang'].flatMap((cc) => ['-O0', '-O2', '-O3'].map((opt) => ({ cc, opt })));
      const mismatches = await mapPool(builds, 2, async ({ cc, opt }) => {
        const exe = join(root, `prog-${cc}${opt}`);
        const c = await runProcess(cc, [opt, '-w', SPLIT_FILES.init, SPLIT_FILES.func, SPLIT_FILES.driver, '-o', exe], {
          cwd: root,
          timeoutMs: 300_000,
        });
        if (c.status !== 0) return [`${cc} ${opt}: compile failed: ${c.stderr.slice(0, 1000)}`];
        const r = await runProcess(exe, [], { cwd: root, timeoutMs: 30_000 });
        const lines = r.stdout.trimEnd().split('\n');
        expect(lines, `${cc} ${opt}`).toHaveLength(programs.length);
        return programs.flatMap((g, i) =>
          lines[i] === g.expected
            ? []
            : [`seed ${g.seed} ${cc} ${opt}: printed '${lines[i]}', expected '${g.expected}'`],
        );
      });
      expect(mismatches.flat()).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);

  it('a program on its own, as the harness compiles it (cc OPTS ' +
    'init.c func.c driver.c), prints the expected line', async () => {
    requireTool('gcc');
    requireTool('clang');
    const root = mkdtempSync(join(tmpdir(), 'kiln-yarpgen-one-'));
    try {
      for (const seed of [2, 3]) {
        const g = gen(seed, MEDIUM);
        const dir = join(root, String(seed));
        mkdirSync(dir);
        for (const f of files(g)) writeFileSync(join(dir, f.name), f.content);
        for (const cc of ['gcc', 'clang']) {
          const c = await runProcess(cc, ['-O2', '-w', 'init.c', 'func.c', 'driver.c', '-o', 'prog'], {
            cwd: dir,
            timeoutMs: 120_000,
          });
          expect(c.status, c.stderr).toBe(0);
          const r = await runProcess(join(dir, 'prog'), [], { cwd: dir, timeoutMs: 10_000 });
          expect(r.stdout.trimEnd()).toBe(g.expected);
        }
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});

function testFunctions(p: Program) {
  return p.funcs.filter((f) => f.name.startsWith(YARPGEN_TEST_PREFIX));
}
