// Every program quoted in docs/bugs-found.md compiles cleanly on the compilers its entry lists
// (the `<!-- compile: … -->` comment before it): gcc and clang under the validity check of reduced
// cases (src/reduce/validity.ts), tcc and pcc by a plain compile without errors. Each program gets
// what a reader would add (the doc says so): the standard headers, and the checksum helpers when
// it calls kiln_hash. A compiler marked `?` is checked where installed (and named in the output
// when it is not); the others must be installed. Unlike other tests, this one looks for root
// compilers (gcc-16, clang-22: npm run setup -- --profile latest) in the machine's own cache.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveCompiler, type Compiler } from '../../src/harness/compilers.js';
import { runProcess } from '../../src/harness/process.js';
import { ValidityChecker, validitySummary } from '../../src/reduce/validity.js';

const DOC = join(import.meta.dirname, '../../docs/bugs-found.md');

const HELPERS = `static uint64_t kiln_crc = 0xCBF29CE484222325ULL;
static void kiln_hash(uint64_t v) { kiln_crc = (kiln_crc ^ v) * 0x100000001B3ULL; kiln_crc ^= kiln_crc >> 29; }
`;

interface Quoted {
  readonly line: number;
  readonly compilers: readonly { name: string; optional: boolean }[];
  readonly program: string;
}

/** The C programs of the doc, each with the compiler list of the comment just before it. */
function quotedPrograms(doc: string): Quoted[] {
  const out: Quoted[] = [];
  const lines = doc.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```c') continue;
    const marker = /^<!-- compile: (.*) -->$/.exec(lines[i - 1] ?? '');
    if (!marker)
      throw new Error(`docs/bugs-found.md:${i + 1}: a program without a <!-- compile: … --> comment before it`);
    const end = lines.indexOf('```', i + 1);
    const compilers = marker[1]!
      .split(',')
      .map((s) => s.trim())
      .map((s) => ({ name: s.replace(/\?$/, ''), optional: s.endsWith('?') }));
    out.push({ line: i + 1, compilers, program: `${lines.slice(i + 1, end).join('\n')}\n` });
  }
  return out;
}

/**
 * The environment without the test run's empty cache folder (vitest.config.ts), so installed root compilers are found.
 */
function machineEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.KILN_CACHE_DIR;
  return env;
}

/** The program as a reader compiles it. */
function asCompiled(program: string): string {
  const helpers = /\bkiln_hash\s*\(/.test(program) && !/\bkiln_crc\s*=\s*0x/.test(program) ? HELPERS : '';
  return `#include <stdint.h>\n#include <stdio.h>\n${helpers}${program}`;
}

/** A plain compile (tcc, pcc): no error, nothing printed that says error. */
async function compilesPlainly(c: Compiler, source: string): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-doc-'));
  try {
    writeFileSync(join(dir, 'prog.c'), source);
    const r = await runProcess(c.command, ['-c', 'prog.c', '-o', 'prog.o'], {
      cwd: dir,
      timeoutMs: 60_000,
      env: { LC_ALL: 'C' },
    });
    const output = r.stdout + r.stderr;
    return r.status === 0 && !/error/i.test(output)
      ? undefined
      : `${c.name}: status ${r.status}: ${output.trim().split('\n')[0] ?? ''}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('docs/bugs-found.md', () => {
  it('every quoted program compiles cleanly on the compilers its entry lists', async () => {
    const programs = quotedPrograms(readFileSync(DOC, 'utf8'));
    expect(programs.length).toBeGreaterThanOrEqual(10);
    const resolved = new Map<string, Compiler | undefined>();
    const missing = new Set<string>();
    const failures: string[] = [];
    for (const q of programs) {
      const gccLike: Compiler[] = [];
      const source = asCompiled(q.program);
      for (const { name, optional } of q.compilers) {
        if (!resolved.has(name)) resolved.set(name, await resolveCompiler(name, machineEnv()).catch(() => undefined));
        const c = resolved.get(name);
        if (!c) {
          if (!optional) failures.push(`line ${q.line}: ${name} is not installed`);
          missing.add(name);
          continue;
        }
        if (c.family === 'gcc' || c.family === 'clang') gccLike.push(c);
        else {
          const why = await compilesPlainly(c, source);
          if (why) failures.push(`line ${q.line}: ${why}`);
        }
      }
      const v = await new ValidityChecker(gccLike).check([{ name: 'prog.c', content: source }]);
      if (!v.ok) failures.push(`line ${q.line}: ${validitySummary(v, 5)}`);
      if (v.inconclusive.length > 0) failures.push(`line ${q.line}: ${v.inconclusive.join(', ')} crashed or timed out`);
    }
    if (missing.size > 0)
      console.log(`docs/bugs-found.md: not installed here, not checked: ${[...missing].join(', ')}`);
    expect(failures).toEqual([]);
  }, 300_000);
});
