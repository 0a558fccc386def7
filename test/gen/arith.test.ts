// The arith mode (Nagai et al.): determinism, single assignment of t-variables, sizes that follow
// the policy, UB removal by flipping and insertion, and self-checks the interpreter agrees with.
import { describe, expect, it } from 'vitest';
import { emitC } from '../../src/emit/c.js';
import { countBinary, generateArithRaw } from '../../src/gen/arith.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { interpret } from '../../src/interp/interpret.js';
import type { Expr, Program, Stmt } from '../../src/ir/nodes.js';
import { walkProgram } from '../../src/ir/visit.js';
import { structuralError } from '../../src/ir/validate.js';
import { generateProgram } from '../../src/repair/generate.js';

const DEFAULT = parsePolicy({});
const SMALL = parsePolicy({ arith: { minExprs: 5, maxExprs: 12, maxOps: 200 } });

function mainStmts(p: Program): readonly Stmt[] {
  return p.funcs.find((f) => f.id === p.main)!.body.stmts;
}

/** The t-variable assignments of main, in order: [decl id, expression]. */
function assignments(p: Program): [number, Expr][] {
  const out: [number, Expr][] = [];
  for (const s of mainStmts(p)) {
    if (s.kind === 'expr' && s.expr.kind === 'assign' && s.expr.target.kind === 'var')
      out.push([s.expr.target.decl, s.expr.value]);
  }
  return out;
}

/** Nesting depth of parentheses in printed C (what clang's -fbracket-depth limits). */
function parenDepth(text: string): number {
  let d = 0;
  let max = 0;
  for (const ch of text) {
    if (ch === '(') max = Math.max(max, ++d);
    else if (ch === ')') d--;
  }
  return max;
}

describe('arith mode: generation', () => {
  it('is deterministic: the same seed gives the same text, different seeds differ', () => {
    const texts = [1, 2, 3].map((s) => emitC(generateArithRaw(s, SMALL).program));
    expect([1, 2, 3].map((s) => emitC(generateArithRaw(s, SMALL).program))).toEqual(texts);
    expect(new Set(texts).size).toBe(3);
    const a = generateProgram(7, SMALL, 'arith');
    const b = generateProgram(7, SMALL, 'arith');
    expect(a.ok && b.ok).toBe(true);
    if (a.ok && b.ok)
      expect(emitC(b.program, { expected: b.expected })).toBe(emitC(a.program, { expected: a.expected }));
  });

  it('assigns each t-variable exactly once, before any read, and only reads earlier ones', () => {
    for (let seed = 1; seed <= 15; seed++) {
      const { program, results } = generateArithRaw(seed, SMALL);
      expect(structuralError(program)).toBeUndefined();
      expect(program.meta.mode).toBe('arith');
      const tIds = new Set(results.map((r) => r.decl.id));
      const writes = new Map<number, number>();
      walkProgram(program, (n) => {
        if (n.kind === 'assign' && n.target.kind === 'var')
          writes.set(n.target.decl, (writes.get(n.target.decl) ?? 0) + 1);
        if (n.kind === 'incdec') throw new Error('arith programs have no ++/--');
      });
      for (const id of tIds) expect(writes.get(id)).toBe(1);
      for (const id of writes.keys()) expect(tIds.has(id)).toBe(true);
      const done = new Set<number>();
      for (const [decl, e] of assignments(program)) {
        walkProgram(
          {
            ...program,
            globals: [],
            funcs: [
              {
                ...program.funcs[0]!,
                body: { kind: 'block', id: -1, locals: [], stmts: [{ kind: 'expr', id: -2, expr: e }] },
              },
            ],
          },
          (n) => {
            if (n.kind === 'var' && tIds.has(n.decl)) expect(done.has(n.decl)).toBe(true);
          },
        );
        done.add(decl);
      }
      expect(done.size).toBe(results.length);
    }
  });

  it('honours the policy: expression counts and operator counts per expression', () => {
    const p = parsePolicy({ arith: { minExprs: 3, maxExprs: 6, minOps: 40, maxOps: 60 } });
    for (let seed = 1; seed <= 10; seed++) {
      const { program, results, stats } = generateArithRaw(seed, p);
      expect(results.length).toBeGreaterThanOrEqual(3);
      expect(results.length).toBeLessThanOrEqual(6);
      const sizes = assignments(program).map(([, e]) => countBinary(e));
      expect(sizes).toEqual(stats.actual);
      for (const n of stats.requested) {
        expect(n).toBeGreaterThanOrEqual(40);
        expect(n).toBeLessThanOrEqual(60);
      }
      // Insertions only add operators (x + k); fallbacks never happen on these sizes.
      expect(stats.fallbacks).toBe(0);
      const requested = stats.requested.reduce((s, x) => s + x, 0);
      expect(stats.actual.reduce((s, x) => s + x, 0)).toBe(requested + stats.insertions);
    }
  });

  it('reaches thousands of operators in one expression within the depth budget', () => {
    const p = parsePolicy({ arith: { minExprs: 1, maxExprs: 1, minOps: 3000, maxOps: 3000, maxDepth: 30 } });
    const r = generateProgram(5, p, 'arith');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [[, e]] = assignments(r.program) as [[number, Expr]];
    expect(countBinary(e)).toBeGreaterThanOrEqual(3000);
    // Every binary operator, cast and inserted operation adds parentheses; clang allows 256.
    expect(parenDepth(emitC(r.program))).toBeLessThan(256);
    expect(r.expected.split('\n')).toEqual(['@OK@', expect.stringMatching(/^checksum = [0-9A-F]{16}$/)]);
  });

  it('defaults follow the paper: tens of expressions of tens to hundreds of operators, some of thousands', () => {
    let exprs = 0;
    let ops = 0;
    let max = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const { stats } = generateArithRaw(seed, DEFAULT);
      exprs += stats.actual.length;
      ops += stats.actual.reduce((s, x) => s + x, 0);
      max = Math.max(max, ...stats.actual);
    }
    expect(exprs / 10).toBeGreaterThanOrEqual(10);
    expect(ops / exprs).toBeGreaterThan(30);
    expect(max).toBeGreaterThan(500);
  });
});

describe('arith mode: UB removal and self-checks', () => {
  it('leaves no UB for the interpreter, and every check passes in it', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const r = generateProgram(seed, DEFAULT, 'arith');
      if (!r.ok) throw new Error(`seed ${seed} discarded: ${r.reason}`);
      const lines = r.expected.split('\n');
      const checks = mainStmts(r.program).filter((s) => s.kind === 'check').length;
      expect(lines.length).toBe(checks + 1);
      expect(lines.slice(0, -1).every((l) => l === '@OK@')).toBe(true);
      expect(lines.at(-1)).toMatch(/^checksum = [0-9A-F]{16}$/);
      expect(r.stats.repairs).toBe(0);
    }
  });

  it('fixes UB by flipping and by insertion, and by insertion alone when flipping is off', () => {
    let flips = 0;
    let insertions = 0;
    const kinds = new Set<string>();
    for (let seed = 1; seed <= 10; seed++) {
      const { stats } = generateArithRaw(seed, DEFAULT);
      flips += stats.flips;
      insertions += stats.insertions;
      for (const k of Object.keys(stats.byKind)) kinds.add(k);
    }
    expect(flips).toBeGreaterThan(0);
    expect(insertions).toBeGreaterThan(0);
    for (const k of [
      'signed-overflow:flip',
      'division-by-zero:flip',
      'division-by-zero:insert',
      'shift-count-too-large:insert',
      'shift-negative-value:insert',
    ]) {
      expect(kinds).toContain(k);
    }
    const noFlip = parsePolicy({ arith: { flipping: false } });
    for (let seed = 1; seed <= 8; seed++) {
      const raw = generateArithRaw(seed, noFlip);
      expect(raw.stats.flips).toBe(0);
      const r = interpret(raw.program);
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.output).not.toContain('@NG@');
    }
  });

  it('a check prints @NG@ when the value differs from the expected one', () => {
    const raw = generateArithRaw(3, SMALL);
    const main = raw.program.funcs[0]!;
    const stmts = main.body.stmts.map((s) =>
      s.kind === 'check' && s === main.body.stmts.find((x) => x.kind === 'check')
        ? { ...s, expected: bump(s.expected) }
        : s,
    );
    const broken: Program = { ...raw.program, funcs: [{ ...main, body: { ...main.body, stmts } }] };
    const r = interpret(broken);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.output.split('\n')[0]).toBe('@NG@');
    const text = emitC(broken);
    expect(text).toContain('printf("@NG@\\n")');
  });

  it('mixes integer types with float and double', () => {
    const seen = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) {
      walkProgram(generateArithRaw(seed, SMALL).program, (n) => {
        if (n.kind === 'var-decl' && (n.type.kind === 'int' || n.type.kind === 'float')) seen.add(n.type.name);
      });
    }
    for (const t of ['float', 'double', 'int', 'unsigned long', 'int8_t', 'uint64_t']) expect(seen).toContain(t);
  });
});

function bump(v: bigint | number): bigint | number {
  return typeof v === 'bigint' ? (v === 0n ? 1n : 0n) : v === 0 ? 1 : 0;
}
