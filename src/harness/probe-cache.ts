// Answers of per-compiler probes kept in Kiln's cache folder (`probes/`), so that a campaign, a
// reduction or `kiln compilers` does not compile the same probe programs again. An entry is keyed
// by what would change the answer: the compiler file (real path, size, modification time), its
// command and version line, the probe's own code and whatever else the caller names (the CPU for
// a probe that runs binaries). The cache is best effort: an unreadable or unwritable folder only
// means probing again.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Compiler } from './compilers.js';
import { cacheDir } from './roots.js';

/** What a probe returns: its answer, and whether the answer may be kept (no timeout, no kill). */
export interface ProbeAnswer<T> {
  readonly value: T;
  readonly definite: boolean;
}

/**
 * The stored answer of probe `kind` for compiler `c` and the extra key parts, or a new one from
 * `probe` (stored when definite). In-process callers share one promise per key through `memo`.
 */
export function cachedProbe<T>(
  kind: string,
  c: Pick<Compiler, 'realPath' | 'command' | 'version' | 'target'>,
  parts: Readonly<Record<string, unknown>>,
  probe: () => Promise<ProbeAnswer<T>>,
  memo?: Map<string, Promise<T>>,
): Promise<T> {
  const key = probeKey(kind, c, parts);
  const hit = key === undefined ? undefined : memo?.get(key);
  if (hit) return hit;
  const p = (async (): Promise<T> => {
    const file = key === undefined ? undefined : join(cacheDir(), 'probes', `${digest(key).slice(0, 32)}.json`);
    if (file) {
      try {
        const stored = JSON.parse(readFileSync(file, 'utf8')) as { key: string; value: T };
        if (stored.key === key) return stored.value;
      } catch {
        // no entry yet: probe
      }
    }
    const answer = await probe();
    if (file && answer.definite) {
      try {
        mkdirSync(join(file, '..'), { recursive: true });
        // Written whole, then renamed: concurrent campaigns read an old entry or the new one.
        const tmp = `${file}.${process.pid}.tmp`;
        writeFileSync(tmp, `${JSON.stringify({ key, value: answer.value })}\n`);
        renameSync(tmp, file);
      } catch {
        // a read-only cache folder: the next process probes again
      }
    }
    return answer.value;
  })();
  if (key !== undefined) memo?.set(key, p);
  return p;
}

function probeKey(
  kind: string,
  c: Pick<Compiler, 'realPath' | 'command' | 'version' | 'target'>,
  parts: Readonly<Record<string, unknown>>,
): string | undefined {
  try {
    const st = statSync(c.realPath);
    return JSON.stringify({
      kind,
      realPath: c.realPath,
      command: c.command,
      target: c.target ?? '',
      size: st.size,
      mtimeMs: st.mtimeMs,
      version: c.version,
      ...parts,
    });
  } catch {
    return undefined;
  }
}

/** A hex SHA-256 of text (probe code, a CPU's flags) for a key part. */
export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
