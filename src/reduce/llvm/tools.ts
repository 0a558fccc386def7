// The LLVM tools of a clang's own version (opt-N, llc-N, llvm-reduce-N): on PATH, or the
// launchers the latest profile writes for a sid root's (scripts/roots.mjs). A tool of a root runs
// inside it, and so does the test script llvm-reduce starts: that script must name the tools by
// their path inside the root.
import type { Compiler } from '../../harness/compilers.js';
import { findOnPath, launcherIn } from '../../harness/compilers.js';
import { launcherOrigin } from '../../harness/roots.js';

/** One LLVM tool. */
export interface LlvmTool {
  /** `opt-23`. */
  readonly name: string;
  /** What Kiln runs: a path on PATH, or a root's launcher. */
  readonly command: string;
  /** The tool as a script run by a tool of the same place names it (its path inside the root, for a root's). */
  readonly inner: string;
  /** The root it belongs to (undefined: the host). */
  readonly root?: string;
}

/** The tools of one LLVM version, where present. */
export interface LlvmTools {
  readonly major: number;
  readonly opt?: LlvmTool;
  readonly llc?: LlvmTool;
  readonly reduce?: LlvmTool;
}

/** The LLVM major version of a clang (`Debian clang version 23.1.4` → 23), or undefined. */
function clangMajor(c: Pick<Compiler, 'version'>): number | undefined {
  const m = /clang version (\d+)/.exec(c.version);
  return m ? Number(m[1]) : undefined;
}

/** opt, llc and llvm-reduce of the clang's version; undefined when its version is unknown. */
export function llvmTools(c: Pick<Compiler, 'version'>, env: NodeJS.ProcessEnv = process.env): LlvmTools | undefined {
  const major = clangMajor(c);
  if (major === undefined) return undefined;
  const find = (tool: string): LlvmTool | undefined => {
    const name = `${tool}-${major}`;
    const host = findOnPath(name, env);
    if (host) return { name, command: host, inner: host };
    const launcher = launcherIn(name, env);
    const origin = launcher ? launcherOrigin(launcher) : undefined;
    return launcher && origin ? { name, command: launcher, inner: origin.command, root: origin.path } : undefined;
  };
  const opt = find('opt');
  const llc = find('llc');
  const reduce = find('llvm-reduce');
  return { major, ...(opt ? { opt } : {}), ...(llc ? { llc } : {}), ...(reduce ? { reduce } : {}) };
}
