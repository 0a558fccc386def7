// What a compiler's developers ask for beside the C case of a crash: for clang, the LLVM IR
// reproducer (src/reduce/llvm/reproducer.ts); for gcc, the ICE line, the pass it names (checked
// with `-fdisable-…`: the crash goes when the pass is off) and the preprocessed source, as
// `-freport-bug` would attach it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Compiler } from '../harness/compilers.js';
import { runProcess, SpawnError } from '../harness/process.js';
import { crashFamily, crashSignature, showsSignature, type CrashSignature } from '../harness/signature.js';
import { llvmReproducer, type LlvmOutcome } from './llvm/reproducer.js';

/** The GCC side of a crash report. */
interface GccReproducer {
  /** `internal compiler error: in regstat_free_n_sets_and_refs, at regstat.cc:88`. */
  readonly ice: string;
  /** `RTL pass: reload`, as GCC's `during … pass` line names it. */
  readonly pass?: string;
  /** The option that turns the pass off, when it makes the crash go (`-fdisable-rtl-reload`). */
  readonly disabledBy?: string;
  /** The preprocessed source (reduced.i), when the compiler made it. */
  readonly preprocessed?: string;
  /** The command that crashes, as a report shows it. */
  readonly command: string;
}

/** What {@link crashReproducers} found for one crash. */
export interface CrashReproducers {
  readonly signature?: CrashSignature;
  readonly llvm?: LlvmOutcome;
  readonly gcc?: GccReproducer;
}

/** What a crash's reproducers need. */
export interface CrashReproducerOptions {
  readonly compiler: Compiler;
  /** The configuration's options (pseudo-options and the campaign's `-w` left out here). */
  readonly options: readonly string[];
  /** The reduced C program (one file). */
  readonly source: string;
  /** The compiler's output on it (the crash report). */
  readonly stderr: string;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (line: string) => void;
}

/** The LLVM reproducer of a clang crash, or the GCC facts of a gcc crash; nothing for other compilers. */
export async function crashReproducers(o: CrashReproducerOptions): Promise<CrashReproducers> {
  const family = crashFamily(o.compiler);
  if (!family) return {};
  const signature = crashSignature(o.stderr, o.compiler.family === 'gcc' ? 'gcc' : 'clang', family);
  if (!signature) return {};
  const options = o.options.filter((x) => x !== '-w' && !x.startsWith('+'));
  const work = mkdtempSync(join(tmpdir(), 'kiln-crash-repro-'));
  try {
    if (o.compiler.family === 'clang') {
      const llvm = await llvmReproducer({
        compiler: o.compiler,
        options,
        source: o.source,
        needles: signature.needles,
        work,
        ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.onProgress ? { onProgress: o.onProgress } : {}),
      });
      return { signature, llvm };
    }
    return { signature, gcc: await gccReproducer(o, options, signature, work) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** GCC passes without which nothing is compiled: a crash that goes when they are off proves nothing. */
const MANDATORY_PASSES: ReadonlySet<string> = new Set(['expand', 'final', 'ssa', 'cfg']);

async function gccReproducer(
  o: CrashReproducerOptions,
  options: readonly string[],
  signature: CrashSignature,
  work: string,
): Promise<GccReproducer> {
  writeFileSync(join(work, 'prog.c'), o.source);
  const run = (args: readonly string[]) =>
    runProcess(o.compiler.command, [...args], {
      cwd: work,
      timeoutMs: o.timeoutMs ?? 120_000,
      env: { LC_ALL: 'C', TMPDIR: work },
      maxOutputBytes: 16 << 20,
      ...(o.signal ? { signal: o.signal } : {}),
    }).catch((e: unknown) => {
      if (e instanceof SpawnError) return undefined;
      throw e;
    });
  const ice = o.stderr.split('\n').find((l) => l.includes('internal compiler error'));
  const iceLine = ice ? ice.slice(ice.indexOf('internal compiler error')).trim() : signature.key;
  // `during RTL pass: reload` → -fdisable-rtl-reload: when the crash goes, the pass is confirmed.
  let disabledBy: string | undefined;
  const m = /^(GIMPLE|RTL|IPA) pass: (\S+)$/.exec(signature.pass ?? '');
  const raw = o.stderr.split('\n').find((l) => /^during (?:GIMPLE|RTL|IPA) pass: /.test(l.trim()));
  const passName = raw ? raw.trim().replace(/^during \S+ pass: /, '') : m?.[2];
  // Passes every compile needs (expand turns GIMPLE into RTL, final writes the assembly) cannot
  // be turned off to confirm anything: disabling them skips code generation altogether.
  if (m && passName && !MANDATORY_PASSES.has(passName)) {
    const flag = `-fdisable-${m[1] === 'GIMPLE' ? 'tree' : m[1]!.toLowerCase()}-${passName}`;
    const r = await run(['-w', ...options, flag, '-c', 'prog.c', '-o', 'prog.o']);
    if (r && !r.timedOut && !showsSignature(r.stderr, signature.needles)) disabledBy = flag;
  }
  const pre = await run(['-w', ...options, '-E', 'prog.c']);
  return {
    ice: iceLine,
    ...(signature.pass ? { pass: signature.pass } : {}),
    ...(disabledBy ? { disabledBy } : {}),
    ...(pre && pre.status === 0 ? { preprocessed: pre.stdout } : {}),
    command: [o.compiler.name, ...options, '-c', 'reduced.c'].join(' '),
  };
}
