// Interpreter throughput on loop-heavy programs, in executed IR operations per second.
//
//   npm run bench:interp [-- --smoke]   (--smoke: loops 50 times smaller, one timed run)
//
// An "operation" is one expression node evaluated or one statement executed. The count comes
// from the run's own profile (statement execution counts × the nodes each statement evaluates),
// so the timed runs carry no extra instrumentation.
import { C, type IntType } from '../src/c/types.js';
import { IRBuilder } from '../src/ir/build.js';
import type { Expr, Program } from '../src/ir/nodes.js';
import { arrayOf } from '../src/ir/types.js';
import { children, walkProgram } from '../src/ir/visit.js';
import { CompiledProgram } from '../src/interp/interpret.js';

function loopProgram(t: IntType, outer: number, inner: number): Program {
  const b = new IRBuilder();
  const a = b.global('a', arrayOf(t, inner), b.list([]));
  const s = b.global('s', t, b.lit(0, t));
  const i = b.local('i', C.int32);
  const j = b.local('j', C.int32);
  const elem = (ix: Expr): Expr => b.idx(b.v(a), ix);
  const mask = b.lit(0xff, t);
  // a[j] = (a[j] + (i & j)) ^ (a[(j + 1) % inner] >> 3);  s = s + (a[j] & 0xff);
  const body = b.block([
    b.stmt(
      b.assign(
        elem(b.v(j)),
        b.bin(
          '^',
          b.bin('+', elem(b.v(j)), b.bin('&', b.v(i), b.v(j))),
          b.bin('>>', elem(b.bin('%', b.bin('+', b.v(j), b.lit(1)), b.lit(inner))), b.lit(3)),
        ),
      ),
    ),
    b.stmt(b.assign(b.v(s), b.bin('+', b.v(s), b.bin('&', elem(b.v(j)), mask)))),
  ]);
  const innerLoop = b.for(
    b.assign(b.v(j), b.lit(0)),
    b.bin('<', b.v(j), b.lit(inner)),
    b.incdec('++', b.v(j), false),
    body,
  );
  const outerLoop = b.for(
    b.assign(b.v(i), b.lit(0)),
    b.bin('<', b.v(i), b.lit(outer)),
    b.incdec('++', b.v(i), false),
    b.block([innerLoop]),
  );
  const f1 = b.func('func_1', C.int32, [], b.block([outerLoop, b.ret(b.lit(0))], [i, j]));
  const main = b.func('main', C.int, [], b.block([b.stmt(b.call(f1, [])), b.hash(b.v(s))]));
  return b.program({ globals: [a, s], funcs: [f1, main], main });
}

/** Expression nodes evaluated per execution of each statement (loop headers count cond + step per iteration). */
function opsPerStatement(p: Program): { perExec: Map<number, number>; perIter: Map<number, number> } {
  const perExec = new Map<number, number>();
  const perIter = new Map<number, number>();
  const size = (e: Expr | undefined): number => {
    if (!e) return 0;
    let n = 1;
    for (const c of children(e)) n += size(c as Expr);
    return n;
  };
  walkProgram(p, (n) => {
    switch (n.kind) {
      case 'expr':
        perExec.set(n.id, 1 + size(n.expr));
        break;
      case 'hash':
        perExec.set(n.id, 1 + size(n.value));
        break;
      case 'return':
        perExec.set(n.id, 1 + size(n.value));
        break;
      case 'if':
        perExec.set(n.id, 1 + size(n.cond));
        break;
      case 'for':
        perExec.set(n.id, 1 + size(n.init) + size(n.cond));
        perIter.set(n.id, size(n.cond) + size(n.step));
        break;
      default:
        if ('id' in n && (n.kind === 'block' || n.kind === 'break' || n.kind === 'continue')) perExec.set(n.id, 1);
    }
  });
  return { perExec, perIter };
}

function measure(name: string, p: Program, repeats: number): void {
  const compiled = CompiledProgram.compile(p, { limits: { maxSteps: 1e9 } });
  const first = compiled.run();
  if (!first.ok) throw new Error(`${name}: benchmark program hit UB: ${first.ub.kind}`);
  const { perExec, perIter } = opsPerStatement(p);
  let ops = 0;
  for (const [id, c] of first.profile.stmtCounts) ops += c * (perExec.get(id) ?? 1);
  for (const [id, c] of first.profile.loopIters) ops += c * (perIter.get(id) ?? 0);
  const times: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = process.hrtime.bigint();
    compiled.run();
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  const mops = ops / median / 1e6;
  console.log(
    `${name.padEnd(28)} ${(ops / 1e6).toFixed(1).padStart(7)} M ops  ` +
      `median ${(median * 1000).toFixed(0).padStart(6)} ms  ${mops.toFixed(1).padStart(6)} M ops/s`,
  );
}

const smoke = process.argv.includes('--smoke');
const scale = smoke ? 50 : 1;
const repeats = smoke ? 1 : 5;
console.log(
  `interpreter throughput (executed IR operations per second, median of ${repeats} runs${smoke ? '; smoke size' : ''})`,
);
measure('loops over int32 arrays', loopProgram(C.int32, 2000 / scale, 500), repeats);
measure('loops over uint8 arrays', loopProgram(C.uint8, 2000 / scale, 500), repeats);
measure('loops over int64 arrays', loopProgram(C.int64, 1000 / scale, 500), repeats);
