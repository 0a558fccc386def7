// Wrong-code fingerprints for gcc. GCC has no pass counter like LLVM's opt-bisect, but nearly every
// optimisation has a flag: the flags enabled at the finding's options (`gcc -Q --help=optimizers`)
// are switched off with `-fno-…` and a halving search finds one whose disabling hides the bug. When
// no single flag does (many RTL passes, `combine` among them, have no flag), the passes listed by
// `-fdump-passes` are searched the same way with `-fdisable-tree-…`/`-fdisable-rtl-…`.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isTranslationUnit } from '../emit/files.js';
import type { Compiler } from '../harness/compilers.js';
import { runProcess, SpawnError } from '../harness/process.js';
import { compilerOptions } from '../harness/matrix.js';
import { minimalSubset } from './minimise.js';
import type { StoredFinding } from './finding.js';
import type { BugPredicate, PredicateContext } from './predicate.js';
import type { SearchOutcome } from './search.js';

/** Parses `gcc -Q --help=optimizers` output: the on/off flags marked `[enabled]` (`-ftree-vrp`). */
function parseEnabledOptimizers(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s+(-f[A-Za-z0-9][\w+.-]*)\s+\[enabled\]\s*$/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

/** `-ftree-vrp` → `-fno-tree-vrp`, `-fno-plt` → `-fplt`. */
export function negateFlag(flag: string): string {
  return flag.startsWith('-fno-') ? `-f${flag.slice(5)}` : `-fno-${flag.slice(2)}`;
}

/** The optimisation flags gcc enables at these options. */
export async function enabledOptimizers(
  compiler: Compiler,
  options: readonly string[],
  signal?: AbortSignal,
): Promise<string[]> {
  const r = await runTool(compiler.command, ['-Q', '--help=optimizers', ...options], undefined, signal);
  return parseEnabledOptimizers(r);
}

/** One pass of `-fdump-passes`: its dump name and whether it would run. */
export interface GccPass {
  /** `tree-vrp1`, `rtl-combine`, `ipa-inline` (what `-fdisable-<name>` takes). */
  readonly name: string;
  readonly on: boolean;
  /** A pass that groups others (`tree-loop`, `ipa-opt_local_passes`). */
  readonly container: boolean;
}

/** Parses the pass tree gcc prints on stderr with `-fdump-passes`. */
export function parseDumpPasses(stderr: string): GccPass[] {
  const rows: { name: string; on: boolean; indent: number }[] = [];
  for (const line of stderr.split('\n')) {
    const m = /^(\s*)(\S.*?)\s*:\s+(ON|OFF)\s*$/.exec(line);
    if (m) rows.push({ indent: m[1]!.length, name: m[2]!, on: m[3] === 'ON' });
  }
  return rows.map((r, i) => ({ name: r.name, on: r.on, container: (rows[i + 1]?.indent ?? 0) > r.indent }));
}

/**
 * Passes without which gcc cannot produce code (lowering, SSA construction, expansion, register
 * allocation, final output, bookkeeping): disabling them makes the compiler crash or emit nothing,
 * which tells nothing about the bug. Names without the instance number.
 */
// biome-ignore format: data table
const MANDATORY_PASSES = new Set([
  'tree-omplower', 'tree-lower', 'tree-eh', 'tree-cfg', 'tree-ompexp', 'tree-fixup_cfg', 'tree-ssa', 'tree-walloca',
  'tree-waccess', 'tree-nothrow', 'tree-local-fnsummary', 'tree-release_ssa', 'tree-ompexpssa', 'tree-ompdevlow',
  'tree-adjust_alignment', 'tree-alias', 'tree-retslot', 'tree-stdarg', 'tree-cplxlower', 'tree-veclower', 'tree-veclower2',
  'tree-switchlower', 'tree-lower_vaarg', 'tree-isel', 'tree-optimized', 'tree-tmmark', 'tree-tmedge', 'tree-loopinit',
  'tree-loopdone', 'tree-fix_loops', 'tree-crited', 'tree-objsz', 'tree-early_objsz', 'tree-wrestrict', 'tree-uncprop',
  'ipa-visibility', 'ipa-free-fnsummary', 'ipa-fnsummary', 'ipa-ipa_oacc_kernels', 'ipa-targetclone', 'ipa-simdclone',
  'ipa-comdats', 'ipa-remove_symbols', 'ipa-static-var',
  'rtl-expand', 'rtl-vregs', 'rtl-into_cfglayout', 'rtl-outof_cfglayout', 'rtl-jump', 'rtl-dfinit', 'rtl-dfinish',
  'rtl-reginfo', 'rtl-loop2_init', 'rtl-loop2_done', 'rtl-split', 'rtl-mode_sw', 'rtl-asmcons', 'rtl-ira', 'rtl-reload',
  'rtl-pro_and_epilogue', 'rtl-stack', 'rtl-alignments', 'rtl-mach', 'rtl-barriers', 'rtl-shorten', 'rtl-nothrow',
  'rtl-dwarf2', 'rtl-final', 'rtl-zero_call_used_regs',
]);

/** A pass name without its instance number: `tree-vrp2` → `tree-vrp`. */
export function passFamily(name: string): string {
  return name.replace(/\d+$/, '');
}

/** Passes worth disabling one by one: running, not containers, not mandatory, with a usable name. */
export function searchablePasses(passes: readonly GccPass[]): string[] {
  const names = passes
    .filter(
      (p) =>
        p.on && !p.container && /^(tree|rtl|ipa)-[\w.-]+$/.test(p.name) && !MANDATORY_PASSES.has(passFamily(p.name)),
    )
    .map((p) => p.name);
  return [...new Set(names)];
}

/** The passes gcc runs on the finding's first translation unit at its options. */
async function dumpPasses(f: StoredFinding, ctx: PredicateContext): Promise<GccPass[]> {
  const dir = await ctx.temp.dir('passes');
  try {
    for (const s of f.sources) await writeFile(join(dir, s.name), s.content);
    const unit = f.sources.find((s) => isTranslationUnit(s.name))?.name ?? f.sources[0]!.name;
    const stderr = await runTool(
      ctx.compiler.command,
      [...compilerOptions(f.options), '-fdump-passes', '-S', unit, '-o', 'out.s'],
      dir,
      ctx.signal,
      true,
    );
    return parseDumpPasses(stderr);
  } finally {
    await ctx.temp.remove(dir);
  }
}

/** Limits of a gcc search (probes beyond the first checks). */
export interface GccSearchLimits {
  /** Probes of the flag search. */
  readonly flagProbes: number;
  /** Probes of the pass search (it runs only when no single flag hides the bug). */
  readonly passProbes: number;
}

/** Defaults: one culprit among ~130 flags or ~150 passes needs about 9 probes, two about 17. */
export const DEFAULT_GCC_LIMITS: GccSearchLimits = { flagProbes: 40, passProbes: 40 };

/**
 * Finds a flag (else a pass) whose disabling hides the bug. The bug must show with the finding's
 * own options; when neither every flag nor every searchable pass switched off hides it, no
 * optimisation is to blame.
 */
export async function gccFlagSearch(
  f: StoredFinding,
  test: BugPredicate,
  ctx: PredicateContext,
  limits: GccSearchLimits = DEFAULT_GCC_LIMITS,
): Promise<SearchOutcome> {
  const base = await test([]);
  if (base.verdict !== 'shows')
    return {
      kind: 'not-reproduced',
      detail: `with the finding's own options the bug did not show (${base.result.judgement.outcome})`,
    };
  const flags = await enabledOptimizers(ctx.compiler, compilerOptions(f.options), ctx.signal);
  if (flags.length === 0)
    return { kind: 'no-culprit', detail: `'${ctx.compiler.name} -Q --help=optimizers' listed no enabled optimisation` };
  let flagSet: readonly string[] | undefined;
  let flagsExhausted = false;
  const allFlags = await test(flags.map(negateFlag));
  if (allFlags.verdict === 'hidden') {
    const hides = async (subset: readonly string[]): Promise<boolean> =>
      (await test(subset.map(negateFlag))).verdict === 'hidden';
    const r = await minimalSubset(flags, hides, limits.flagProbes);
    if (!r.exhausted && r.subset.length === 1) {
      const flag = r.subset[0]!;
      return {
        kind: 'culprit',
        name: flag,
        detail: `${negateFlag(flag)} hides the bug (1 of ${flags.length} enabled optimisation flags)`,
        culpritOptions: [negateFlag(flag)],
      };
    }
    flagSet = r.subset;
    flagsExhausted = r.exhausted;
  }
  // No single flag: search the passes themselves.
  const passes = searchablePasses(await dumpPasses(f, ctx));
  const disable = (subset: readonly string[]): string[] => subset.map((p) => `-fdisable-${p}`);
  if (passes.length > 0 && (await test(disable(passes))).verdict === 'hidden') {
    const r = await minimalSubset(
      passes,
      async (subset) => (await test(disable(subset))).verdict === 'hidden',
      limits.passProbes,
    );
    if (!r.exhausted && r.subset.length === 1) {
      const pass = r.subset[0]!;
      return {
        kind: 'culprit',
        name: passFamily(pass),
        detail:
          `-fdisable-${pass} hides the bug (1 of ${passes.length} searchable ` +
          `passes)${flagSet ? `; no single -fno- flag does (minimal set: ${flagSet.join(' ')})` : ''}`,
        culpritOptions: disable([pass]),
      };
    }
  }
  if (flagSet) {
    const sorted = [...flagSet].sort();
    const what = flagsExhausted
      ? `the search ran out of probes; these ${sorted.length} flags disabled together hide it (not minimal)`
      : `disabling these ${sorted.length} flags together does`;
    return {
      kind: 'culprit',
      name: sorted.join('+'),
      detail: `no single flag or pass hides the bug; ${what}: ${sorted.map(negateFlag).join(' ')}`,
      culpritOptions: sorted.map(negateFlag),
    };
  }
  return {
    kind: 'no-culprit',
    detail:
      `the bug shows with all ${flags.length} enabled optimisation flags ` +
      `disabled${passes.length ? ' and with the searchable passes disabled' : ''}: not caused by an optional ` +
      `optimisation`,
  };
}

/** Runs a compiler query (no program run) and returns its stdout, or its stderr when asked. */
async function runTool(
  command: string,
  args: readonly string[],
  cwd: string | undefined,
  signal: AbortSignal | undefined,
  wantStderr = false,
): Promise<string> {
  try {
    const r = await runProcess(command, args, {
      ...(cwd ? { cwd } : {}),
      timeoutMs: 60_000,
      env: { LC_ALL: 'C', LANG: 'C', ...(cwd ? { TMPDIR: cwd } : {}) },
      maxOutputBytes: 4 << 20,
      ...(signal ? { signal } : {}),
    });
    return wantStderr ? r.stderr : r.stdout;
  } catch (e) {
    if (e instanceof SpawnError) return '';
    throw e;
  }
}
