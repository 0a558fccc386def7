// The LLVM reproducer of a clang crash: what LLVM's developers ask for instead of a C file. The
// C case's IR before any pass (`clang -emit-llvm -Xclang -disable-llvm-passes`, the same clang),
// checked in `opt` with the level's pipeline; when opt crashes with the crash's signature
// (a middle-end crash), the smallest pipeline that still does (src/reduce/llvm/pipeline.ts),
// the IR reduced by that version's llvm-reduce with it, and the pipeline searched again on the
// reduced IR. When opt does not crash but `llc` does on clang's optimised IR, a back-end crash:
// that IR reduced with llc. Every candidate must show the crash's signature, not just any crash.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Compiler } from '../../harness/compilers.js';
import { runProcess, SpawnError } from '../../harness/process.js';
import { showsSignature, signatureShell } from '../../harness/signature.js';
import { shq } from '../text/scripts.js';
import { minimalPipeline } from './pipeline.js';
import { llvmTools, type LlvmTool } from './tools.js';

/** A reproducer in LLVM IR. */
interface LlvmReproducer {
  /** Where the crash is: the optimiser (`opt`) or code generation (`llc`). */
  readonly stage: 'middle-end' | 'back-end';
  /** The tool and its arguments before the file (`opt-23`, `-passes=loop-deletion`). */
  readonly tool: string;
  readonly args: readonly string[];
  /** The reduced IR (reduced.ll) and its size. */
  readonly ll: string;
  readonly lines: number;
  /** Lines of the IR before llvm-reduce. */
  readonly originalLines: number;
  /** The pipeline (middle end), and how many passes it has. */
  readonly pipeline?: string;
  readonly passes?: number;
  /** The command line a report shows (`opt-23 -passes='…' reduced.ll -disable-output`). */
  readonly command: string;
  readonly seconds: number;
}

/** The reproducer, or why there is none. */
export type LlvmOutcome =
  | { readonly ok: true; readonly reproducer: LlvmReproducer }
  | { readonly ok: false; readonly reason: string };

/** What {@link llvmReproducer} needs. */
interface LlvmReproducerOptions {
  /** The clang that crashed. */
  readonly compiler: Compiler;
  /** Its options (the configuration's, without the campaign's `-w` and pseudo-options). */
  readonly options: readonly string[];
  /** The C program (one file). */
  readonly source: string;
  /** The crash's signature (src/harness/signature.ts): each candidate must show it. */
  readonly needles: readonly string[];
  /** A fresh folder to work in (under /tmp, so that a root's tools see it at the same path). */
  readonly work: string;
  /** Limit of one opt or llc run (default 60 s). */
  readonly timeoutMs?: number;
  /** Limit of each llvm-reduce run (default 20 min); its best IR so far is kept. */
  readonly reduceTimeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (line: string) => void;
}

/** clang's `-Rpass…` options as opt's and llc's `-pass-remarks…`, and `-mllvm X` as X: options of the LLVM tools. */
function llvmToolOptions(options: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < options.length; i++) {
    const o = options[i]!;
    const remark = /^-Rpass(-missed|-analysis)?=(.*)$/.exec(o);
    if (remark) out.push(`-pass-remarks${remark[1] ?? ''}=${remark[2]}`);
    else if (o === '-mllvm' && i + 1 < options.length) out.push(options[++i]!);
  }
  return out;
}

/** The `default<On>` pipeline and llc level of a clang option list (the last `-O` wins). */
function levelOf(options: readonly string[]): { pipeline: string; llc: string; o0: boolean } {
  const last = [...options].reverse().find((o) => /^-O/.test(o)) ?? '-O0';
  const level = last === '-O' ? '1' : last.slice(2);
  const o = /^[0-3sz]$/.test(level) ? level : level === 'fast' ? '3' : '2';
  return {
    pipeline: `default<O${o}>`,
    llc: `-O${/^[sz]$/.test(o) ? '2' : o}`,
    o0: o === '0',
  };
}

/** Builds the LLVM reproducer of a clang crash, or says why it cannot. */
export async function llvmReproducer(o: LlvmReproducerOptions): Promise<LlvmOutcome> {
  const started = Date.now();
  const tools = llvmTools(o.compiler);
  if (!tools) return { ok: false, reason: `the version of ${o.compiler.name} is not known` };
  const { opt, llc, reduce } = tools;
  if (!opt && !llc)
    return { ok: false, reason: `neither opt-${tools.major} nor llc-${tools.major} is installed (npm run setup)` };
  const timeoutMs = o.timeoutMs ?? 60_000;
  const say = o.onProgress ?? (() => undefined);
  const clangOptions = o.options.filter((x) => x !== '-w' && !x.startsWith('+'));
  const extra = llvmToolOptions(clangOptions);
  const level = levelOf(clangOptions);
  writeFileSync(join(o.work, 'prog.c'), o.source);
  const run = (cmd: string, args: readonly string[]) =>
    runProcess(cmd, [...args], {
      cwd: o.work,
      timeoutMs,
      // clang writes a crash's preprocessed source and script into TMPDIR: kept in the work folder.
      env: { LC_ALL: 'C', TMPDIR: o.work },
      maxOutputBytes: 4 << 20,
      ...(o.signal ? { signal: o.signal } : {}),
    }).catch((e: unknown) => {
      if (e instanceof SpawnError) return undefined;
      throw e;
    });
  /** Whether a tool run on `file` crashes with the signature. */
  const crashes = async (tool: LlvmTool, args: readonly string[], file: string): Promise<boolean> => {
    const r = await run(tool.command, [...args, file, ...(tool === opt ? ['-disable-output'] : ['-o', '/dev/null'])]);
    return !!r && !r.timedOut && r.status !== 0 && showsSignature(r.stderr, o.needles);
  };
  // The IR clang hands to its optimiser, and (for a back-end crash) the IR it hands to code generation.
  const front = await run(o.compiler.command, [
    ...clangOptions,
    '-w',
    '-emit-llvm',
    '-S',
    '-Xclang',
    '-disable-llvm-passes',
    ...(level.o0 ? ['-Xclang', '-disable-O0-optnone'] : []),
    '-c',
    'prog.c',
    '-o',
    'prog.ll',
  ]);
  if (front?.status !== 0)
    return {
      ok: false,
      reason: `${o.compiler.name} -emit-llvm -Xclang -disable-llvm-passes failed: the crash is in the front end`,
    };
  const ir = readFileSync(join(o.work, 'prog.ll'), 'utf8');
  if (opt && !level.o0 && (await crashes(opt, [`-passes=${level.pipeline}`, ...extra], 'prog.ll'))) {
    say(`${opt.name} -passes='${level.pipeline}' crashes the same way: a middle-end crash`);
    const listed = await run(opt.command, [
      `-passes=${level.pipeline}`,
      '-print-pipeline-passes',
      '-disable-output',
      'prog.ll',
    ]);
    const full = listed?.status === 0 ? listed.stdout.trim() : level.pipeline;
    const test = (file: string) => (p: string) => crashes(opt, [`-passes=${p}`, ...extra], file);
    const first = await minimalPipeline(full, test('prog.ll'));
    say(`smallest pipeline on the whole IR: ${first.passes} passes (${first.tests} tests)`);
    const reduced = await reduceIr(o, reduce, opt, [`-passes=${first.pipeline}`, ...extra], ['-disable-output'], say);
    const second = reduced ? await minimalPipeline(first.pipeline, test('reduced.ll')) : first;
    const args = [`-passes=${second.pipeline}`, ...extra];
    return {
      ok: true,
      reproducer: {
        stage: 'middle-end',
        tool: opt.name,
        args,
        ll: reduced ?? ir,
        lines: countLines(reduced ?? ir),
        originalLines: countLines(ir),
        pipeline: second.pipeline,
        passes: second.passes,
        command: `${opt.name} ${args.map(shellWord).join(' ')} reduced.ll -disable-output`,
        seconds: Math.round((Date.now() - started) / 100) / 10,
      },
    };
  }
  if (!llc) return { ok: false, reason: `${opt!.name} does not crash the same way, and llc-${tools.major} is missing` };
  const back = await run(o.compiler.command, [
    ...clangOptions,
    '-w',
    '-emit-llvm',
    '-S',
    '-c',
    'prog.c',
    '-o',
    'opt.ll',
  ]);
  if (back?.status !== 0)
    return {
      ok: false,
      reason:
        `${o.compiler.name} crashes in its optimiser, but ${opt?.name ?? 'opt'} -passes='${level.pipeline}' does not ` +
        '(a clang option the LLVM tools do not take?)',
    };
  const codegen = [level.llc, ...extra];
  if (!(await crashes(llc, codegen, 'opt.ll')))
    return { ok: false, reason: `neither ${opt?.name ?? 'opt'} nor ${llc.name} crashes the same way on its IR` };
  say(`${llc.name} ${level.llc} crashes the same way on the optimised IR: a back-end crash`);
  const optimised = readFileSync(join(o.work, 'opt.ll'), 'utf8');
  writeFileSync(join(o.work, 'prog.ll'), optimised);
  const reduced = await reduceIr(o, reduce, llc, codegen, ['-o', '/dev/null'], say);
  return {
    ok: true,
    reproducer: {
      stage: 'back-end',
      tool: llc.name,
      args: codegen,
      ll: reduced ?? optimised,
      lines: countLines(reduced ?? optimised),
      originalLines: countLines(optimised),
      command: `${llc.name} ${codegen.map(shellWord).join(' ')} reduced.ll -o /dev/null`,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    },
  };
}

/**
 * Reduces `prog.ll` with llvm-reduce into `reduced.ll`; the test runs `tool ARGS FILE AFTER` and
 * wants the signature. Undefined when there is no llvm-reduce (of the tool's own place) or it
 * made nothing; llvm-reduce saves each better IR as it goes, so a run cut by its limit still gives one.
 */
async function reduceIr(
  o: LlvmReproducerOptions,
  reduce: LlvmTool | undefined,
  tool: LlvmTool,
  args: readonly string[],
  after: readonly string[],
  say: (line: string) => void,
): Promise<string | undefined> {
  if (!reduce || reduce.root !== tool.root) {
    say(`no llvm-reduce beside ${tool.name}: the IR is not reduced`);
    return undefined;
  }
  const script = join(o.work, 'llvm-reduce-test.sh');
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      '# Interesting iff the tool crashes with the crash signature (C-Reduce convention; written by Kiln).',
      `${[tool.inner, ...args].map(shq).join(' ')} "$1" ${after.map(shq).join(' ')} >"$1.log" 2>&1`,
      's=$?',
      `if [ "$s" -ne 0 ] && ${signatureShell(o.needles, '"$1.log"')}; then rm -f "$1.log"; exit 0; fi`,
      'rm -f "$1.log"',
      'exit 1',
      '',
    ].join('\n'),
  );
  chmodSync(script, 0o755);
  say(`reducing the IR with ${reduce.name}`);
  const r = await runProcess(reduce.command, [`--test=${script}`, '-j', '1', 'prog.ll', '-o', 'reduced.ll'], {
    cwd: o.work,
    timeoutMs: o.reduceTimeoutMs ?? 20 * 60_000,
    env: { LC_ALL: 'C' },
    ...(o.signal ? { signal: o.signal } : {}),
  }).catch((e: unknown) => {
    if (e instanceof SpawnError) return undefined;
    throw e;
  });
  if (!r) return undefined;
  try {
    const text = readFileSync(join(o.work, 'reduced.ll'), 'utf8');
    return text.trim() === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : shq(w);
}

function countLines(text: string): number {
  return text.split('\n').filter((l) => l.trim() !== '').length;
}
