// repro.sh as a script that runs: user-controlled strings (compiler paths and names with newlines,
// versions, observed output) must not become commands, and a nondeterministic finding's script
// accepts each behaviour it showed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Compiler } from '../../src/harness/compilers.js';
import { buildMatrix, DEFAULT_LIMITS } from '../../src/harness/matrix.js';
import { reproScript } from '../../src/harness/repro.js';
import { requireTool } from '../support/cc.js';

const PROGRAM = '#include <stdio.h>\nint main(void) { puts("checksum = 1"); return 0; }\n';

describe('repro.sh with hostile strings', () => {
  let work: string;
  let cc: Compiler;

  beforeAll(() => {
    requireTool('gcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-repro-'));
    // A compiler in a folder whose name holds newlines and a command.
    const evilDir = join(work, 'evil\ntouch INJECTED_PATH\n');
    mkdirSync(evilDir);
    const gcc = spawnSync('sh', ['-c', 'command -v gcc'], { encoding: 'utf8' }).stdout.trim();
    symlinkSync(gcc, join(evilDir, 'gcc'));
    cc = {
      name: 'gcc\ntouch INJECTED_NAME',
      command: join(evilDir, 'gcc'),
      realPath: gcc,
      family: 'gcc',
      version: 'gcc 12\ntouch INJECTED_VERSION\r',
    };
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const script = (expected: string, detail: string): string => {
    const config = buildMatrix([cc], ['-O0'])[0]!;
    const dir = mkdtempSync(join(work, 'finding-'));
    writeFileSync(join(dir, 'prog.c'), PROGRAM);
    writeFileSync(
      join(dir, 'repro.sh'),
      reproScript({
        id: '1-1-x',
        config,
        judgement: { outcome: 'wrong-code', bucket: 'wrong-code:x:-O0', detail },
        expected,
        limits: DEFAULT_LIMITS,
      }),
      { mode: 0o755 },
    );
    return dir;
  };

  it('escapes newlines in the comment header, so no injected line runs, and still compiles with that compiler', () => {
    const run = mkdtempSync(join(work, 'cwd-'));
    // The binary prints "checksum = 1": with another expected line the failure reproduces (exit 0)...
    const bug = script('checksum = 2', "printed 'x\ntouch INJECTED_DETAIL'");
    const r = spawnSync(join(bug, 'repro.sh'), [], { cwd: run, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    // ...and with the right one it does not (exit 1): the compile really used the odd path.
    const ok = script('checksum = 1', 'x');
    expect(spawnSync(join(ok, 'repro.sh'), [], { cwd: run, encoding: 'utf8', timeout: 60_000 }).status).toBe(1);
    expect(readdirSync(run).filter((n) => n.startsWith('INJECTED'))).toEqual([]);
    expect(existsSync(join(bug, 'INJECTED_NAME'))).toBe(false);
    // Each header line is one comment line.
    const header = spawnSync('sed', ['-n', '1,/^set -u$/p', join(bug, 'repro.sh')], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n');
    for (const line of header.slice(1, -1)) expect(line).toMatch(/^# /);
  });

  it('accepts any behaviour of a nondeterministic finding', () => {
    const config = buildMatrix([cc], ['-O0'])[0]!;
    const dir = mkdtempSync(join(work, 'nondet-'));
    writeFileSync(join(dir, 'prog.c'), '#include <stdlib.h>\nint main(void) { abort(); }\n');
    const write = (alternatives: boolean): void =>
      writeFileSync(
        join(dir, 'repro.sh'),
        reproScript({
          id: '1-1-x',
          config,
          judgement: { outcome: 'wrong-code', bucket: 'wrong-code:x:-O0' },
          ...(alternatives
            ? { alternatives: [{ outcome: 'binary-crash', bucket: 'binary-crash:x:SIGABRT', signal: 'SIGABRT' }] }
            : {}),
          expected: 'checksum = 1',
          limits: DEFAULT_LIMITS,
        }),
        { mode: 0o755 },
      );
    write(false);
    expect(spawnSync(join(dir, 'repro.sh'), [], { cwd: dir, timeout: 60_000 }).status).toBe(1);
    write(true);
    expect(spawnSync(join(dir, 'repro.sh'), [], { cwd: dir, timeout: 60_000 }).status).toBe(0);
  });

  it('tells a binary killed by a signal from an exit with 128 + that signal (and a hang from exit 137)', () => {
    const config = buildMatrix([cc], ['-O0'])[0]!;
    const verdict = (program: string, judgement: Parameters<typeof reproScript>[0]['judgement']): number | null => {
      const dir = mkdtempSync(join(work, 'signal-'));
      writeFileSync(join(dir, 'prog.c'), program);
      writeFileSync(
        join(dir, 'repro.sh'),
        reproScript({
          id: '1-1-x',
          config,
          judgement,
          expected: 'checksum = 1',
          limits: { ...DEFAULT_LIMITS, run: { ...DEFAULT_LIMITS.run, timeoutMs: 2000 } },
        }),
        { mode: 0o755 },
      );
      return spawnSync(join(dir, 'repro.sh'), [], { cwd: dir, timeout: 60_000 }).status;
    };
    const fpe = { outcome: 'binary-crash', bucket: 'binary-crash:x:SIGFPE', signal: 'SIGFPE' } as const;
    // A real SIGFPE (a division by zero) reproduces; exit(136) does not (a reduction once drifted to it).
    expect(verdict('#include <signal.h>\nint main(void) { raise(SIGFPE); return 0; }\n', fpe)).toBe(0);
    expect(verdict('int main(void) { return 136; }\n', fpe)).toBe(1);
    const hang = { outcome: 'binary-hang', bucket: 'binary-hang:x' } as const;
    expect(verdict('int main(void) { for (;;) ; }\n', hang)).toBe(0);
    expect(verdict('int main(void) { return 137; }\n', hang)).toBe(1);
  });
});
