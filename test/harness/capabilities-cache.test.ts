// A compiler's capabilities are probed once and kept in the cache folder: the next process reads
// them back without a compile, a changed compiler is probed anew, and an answer from a probe that
// was killed is not kept.
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveCompiler } from '../../src/harness/compilers.js';
import { requireTool } from '../support/cc.js';

/** The module as a new process sees it: nothing probed in memory yet. */
async function fresh(): Promise<typeof import('../../src/harness/capabilities.js')> {
  vi.resetModules();
  return import('../../src/harness/capabilities.js');
}

describe('the capability cache', () => {
  let work: string;
  let saved: string | undefined;
  beforeAll(() => {
    requireTool('gcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-caps-cache-'));
    saved = process.env.KILN_CACHE_DIR;
    process.env.KILN_CACHE_DIR = join(work, 'cache');
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.KILN_CACHE_DIR;
    else process.env.KILN_CACHE_DIR = saved;
    rmSync(work, { recursive: true, force: true });
  });

  /** A gcc wrapper that logs each call; `onMacros` runs first when asked for the predefined macros. */
  function wrapper(name: string, onMacros = ''): { path: string; probes: () => number } {
    const path = join(work, name);
    const log = join(work, `${name}.log`);
    writeFileSync(log, '');
    writeFileSync(
      path,
      `#!/bin/sh\necho "$*" >> ${log}\ncase "$*" in *-dM*) ${onMacros || ':'};; esac\nexec gcc "$@"\n`,
    );
    chmodSync(path, 0o755);
    // Probes start with the macros (`cc -dM -E`); --version and -dumpmachine come from resolving it.
    return {
      path,
      probes: () =>
        readFileSync(log, 'utf8')
          .split('\n')
          .filter((l) => l.includes('-dM')).length,
    };
  }

  it('reads back what one process probed, and probes a changed compiler again', async () => {
    const w = wrapper('cc-a');
    const c = await resolveCompiler(w.path);
    const first = await (await fresh()).compilerCapabilities(c);
    expect(first.labelValues).toBe(true);
    expect(first.vectors).toBeDefined();
    expect(w.probes()).toBe(1);
    // Another process: the same answer, no compile.
    expect(await (await fresh()).compilerCapabilities(c)).toEqual(first);
    expect(w.probes()).toBe(1);
    // The compiler changes (its size and time): probed again.
    appendFileSync(w.path, '# changed\n');
    expect(await (await fresh()).compilerCapabilities(c)).toEqual(first);
    expect(w.probes()).toBe(2);
  }, 120_000);

  it('keeps no answer from a probe whose compile was killed', async () => {
    const w = wrapper('cc-killed', 'kill -9 $$');
    const c = await resolveCompiler(w.path);
    const caps = await (await fresh()).compilerCapabilities(c);
    // Without the macros nothing is claimed.
    expect(caps).toMatchObject({ int128: false, bitIntMaxWidth: 0, labelValues: false });
    await (await fresh()).compilerCapabilities(c);
    expect(w.probes()).toBe(2);
  }, 120_000);
});
