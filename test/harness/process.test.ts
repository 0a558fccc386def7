// Child processes: limits that hold for any duration, runs that end when the child does (even if a
// background process holds its output), and processes that escape the group still killed.
import { execFileSync, spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, runProcess, setLongTimeout } from '../../src/harness/process.js';
import {
  newTag,
  noRandomizeShell,
  RUN_DIR_LENGTH,
  runDirIn,
  runDirShell,
  sandboxArgv,
  sandboxShell,
  timeoutSeconds,
  type SandboxSpec,
} from '../../src/harness/sandbox.js';
import { dies } from '../support/proc.js';

const HOURS_600 = 600 * 3_600_000;

describe('setLongTimeout', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits past the 2^31 ms limit of Node timers instead of firing at once', () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    setLongTimeout(fn, MAX_TIMER_MS + 10_000);
    vi.advanceTimersByTime(1000);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(MAX_TIMER_MS - 1000);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(10_001);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('can be cancelled across the chain', () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    const t = setLongTimeout(fn, 3 * MAX_TIMER_MS);
    vi.advanceTimersByTime(MAX_TIMER_MS + 5);
    t.cancel();
    vi.advanceTimersByTime(3 * MAX_TIMER_MS);
    expect(fn).not.toHaveBeenCalled();
  });
});

describe('runProcess', () => {
  it('does not treat a 600 h limit as an immediate timeout', async () => {
    const r = await runProcess('sleep', ['0.3'], { timeoutMs: HOURS_600 });
    expect(r).toMatchObject({ status: 0, timedOut: false });
  });

  it('kills a child at its limit and says so', async () => {
    const started = Date.now();
    const r = await runProcess('sleep', ['30'], { timeoutMs: 1000 });
    expect(r.timedOut).toBe(true);
    // Well before the child's own 30 s, with room for a loaded machine: the bound tells "killed at
    // its limit" from "waited for the child", not how fast the machine is.
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('finishes when the child exits, even if a background child holds its output', async () => {
    const started = Date.now();
    const r = await runProcess('sh', ['-c', 'sleep 30 & echo $!; echo done'], { timeoutMs: 20_000 });
    expect(r.timedOut).toBe(false);
    expect(r.status).toBe(0);
    // Done before its own 20 s limit and the background child's 30 s, however loaded the machine.
    expect(Date.now() - started).toBeLessThan(20_000);
    const [pid, done] = r.stdout.trim().split('\n');
    expect(done).toBe('done');
    // The background child was part of the run: it is gone too.
    expect(await dies(Number(pid))).toBe(true);
  });

  it('kills children that left the process group with setsid (found by their tag)', async () => {
    const r = await runProcess('sh', ['-c', 'setsid sleep 30 & echo $!; sleep 0.3'], { timeoutMs: 20_000 });
    expect(r.timedOut).toBe(false);
    const pid = Number(r.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    // setsid really made a new session, so killing the group alone would have missed it.
    expect(await dies(pid)).toBe(true);
  });

  it("keeps the head and the tail of a long stderr, and stdout's head", async () => {
    // 100,000 numbered lines on each stream, 4 KiB kept of each.
    const script =
      'i=0; while [ $i -lt 100000 ]; do echo "line $i"; echo "err $i" >&2; i=$((i+1)); done; echo ' +
      '"collect2: error: last" >&2';
    const r = await runProcess('sh', ['-c', script], { timeoutMs: 60_000, maxOutputBytes: 4096 });
    expect(r.truncated).toBe(true);
    expect(r.stdout.startsWith('line 0\nline 1\n')).toBe(true);
    expect(r.stdout.length).toBeLessThanOrEqual(4096);
    expect(r.stderr.startsWith('err 0\nerr 1\n')).toBe(true);
    expect(r.stderr.trimEnd().endsWith('err 99999\ncollect2: error: last')).toBe(true);
    expect(r.stderr).toMatch(/\n\[\.\.\. \d+ bytes left out \.\.\.\]\n/);
    // Short output is kept whole, byte for byte, with no marker.
    const short = await runProcess('sh', ['-c', 'printf "é%.0s" $(seq 1 1500) >&2'], {
      timeoutMs: 10_000,
      maxOutputBytes: 4096,
    });
    expect(short.truncated).toBe(false);
    expect(short.stderr).toBe('é'.repeat(1500));
  });

  it('still reports a command that cannot be started', async () => {
    await expect(runProcess('/nonexistent/kiln-cc', [], { timeoutMs: 5000 })).rejects.toMatchObject({
      name: 'SpawnError',
      code: 'ENOENT',
    });
  });
});

describe('the sandbox', () => {
  const spec = (over: Partial<SandboxSpec> = {}): SandboxSpec => ({
    kind: 'run',
    timeoutMs: 2500,
    memoryMb: 64,
    tag: newTag(),
    ...over,
  });

  it('builds one command for Node and for sh: the shell form expands to the same argv', () => {
    for (const s of [spec(), spec({ kind: 'compile', tmpdir: '/tmp/kiln-x', memoryMb: undefined })]) {
      const argv = sandboxArgv(s, ['/opt/my cc/bin/cc', '-O2', "it's", 'prog.c']);
      const text = sandboxShell(s, ['/opt/my cc/bin/cc', '-O2', "it's", 'prog.c']);
      const expanded = execFileSync(
        'sh',
        ['-c', `TAG=${s.tag}; WORK=/tmp/kiln-x; ${noRandomizeShell()}; set -- ${text}; printf '%s\\n' "$@"`],
        { encoding: 'utf8' },
      );
      expect(expanded.trimEnd().split('\n')).toEqual(argv);
    }
  });

  it('turns off address-space randomisation, clears the environment and keeps limits outside Kiln', () => {
    const argv = sandboxArgv(spec(), ['./prog']);
    expect(argv.slice(0, 4)).toEqual(['timeout', '-s', 'KILL', '2.5']);
    expect(argv).toContain('-R');
    expect(argv.slice(argv.indexOf('env'), argv.indexOf('env') + 2)).toEqual(['env', '-i']);
    const r = spawnSync(argv[0]!, [...argv.slice(1, -1), 'sh', '-c', 'cat /proc/self/personality; env | sort'], {
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const [personality, ...env] = r.stdout.trim().split('\n');
    expect(parseInt(personality!, 16) & 0x0040000).toBe(0x0040000); // ADDR_NO_RANDOMIZE
    expect(
      env
        .filter((l) => !l.startsWith('PWD=') && !l.startsWith('SHLVL=') && !l.startsWith('_='))
        .map((l) => l.split('=')[0]),
    ).toEqual(['KILN_TAG', 'LC_ALL', 'PATH']);
  });

  it('gives the run folder a path of fixed length, the same in Node and in sh', () => {
    for (const parent of ['/tmp/a', '/tmp/kiln-fuzz-123456-abcdef/run-XYZ123']) {
      const dir = runDirIn(parent);
      expect(dir).toHaveLength(RUN_DIR_LENGTH);
      const sh = execFileSync('sh', ['-c', `WORK=${parent}; ${runDirShell().join('; ')}; printf %s "$RUN"`], {
        encoding: 'utf8',
      });
      expect(sh).toBe(dir);
    }
  });

  it('writes any duration as plain seconds for timeout', () => {
    expect(timeoutSeconds(2500)).toBe('2.5');
    expect(timeoutSeconds(120_000)).toBe('120');
    expect(timeoutSeconds(HOURS_600)).toBe('2160000');
  });
});
