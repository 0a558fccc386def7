// Bad input to `kiln fuzz` and `kiln findings`: one coded line on stderr, exit status 2, no stack
// trace — and an existing campaign database left byte for byte as it was.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSettings, type FuzzFlags } from '../../src/cli/fuzz.js';
import { isKilnError } from '../../src/diag/errors.js';
import { requireTool } from '../support/cc.js';
import { runKiln, type CliResult } from '../harness/support/cli.js';

function expectCoded(r: CliResult, code: string, text?: RegExp): void {
  expect(r.status, r.stderr).toBe(2);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[0]).toMatch(new RegExp(`^kiln: error\\[${code}\\]: `));
  if (text) expect(lines[0]).toMatch(text);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

async function expectRejected(flags: FuzzFlags, code: string, text?: RegExp): Promise<void> {
  const e = await resolveSettings(flags).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(isKilnError(e), `expected a KilnError, got ${String(e)}`).toBe(true);
  expect((e as { code: string }).code).toBe(code);
  if (text) expect((e as Error).message).toMatch(text);
}

describe('kiln fuzz bad input', () => {
  let work: string;
  let out: string;
  let fingerprint: () => string;

  beforeAll(async () => {
    requireTool('tcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-badinput-'));
    out = join(work, 'out');
    // A real campaign whose database must survive every bad invocation below.
    const r = await runKiln([
      'fuzz',
      '--compilers',
      'tcc',
      '--opts',
      '-O0',
      '--tests',
      '2',
      '--size',
      'small',
      '-j',
      '1',
      '--out',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    fingerprint = () => {
      const files = readdirSync(out).sort();
      const h = createHash('sha256');
      for (const f of files) if (f.startsWith('kiln.db')) h.update(f).update(readFileSync(join(out, f)));
      return `${files.join(',')}:${h.digest('hex')}`;
    };
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('rejects an unknown compiler and leaves the database unchanged', async () => {
    const before = fingerprint();
    const r = await runKiln(['fuzz', '--compilers', 'tcc,no-such-cc-4242', '--tests', '1', '--out', out]);
    expectCoded(r, 'KILN_UNKNOWN_COMPILER', /'no-such-cc-4242' cannot be used: not found on PATH/);
    expect(r.stderr).toMatch(/\nkiln: hint: /);
    expect(fingerprint()).toBe(before);
  });

  it('rejects a broken config file (syntax, unknown field, bad value) and leaves the database unchanged', async () => {
    const before = fingerprint();
    const broken = join(work, 'broken.yaml');
    writeFileSync(broken, 'compilers: [tcc\noptions: -O0\n');
    expectCoded(
      await runKiln(['fuzz', '--config', broken, '--out', out]),
      'KILN_BAD_CONFIG',
      /broken\.yaml: not valid YAML/,
    );
    const wrongField = join(work, 'wrong.json');
    writeFileSync(wrongField, JSON.stringify({ compilers: ['tcc'], limits: { compile: { timeout: 'soon' } } }));
    expectCoded(
      await runKiln(['fuzz', '--config', wrongField, '--out', out]),
      'KILN_BAD_CONFIG',
      /field 'limits\.compile\.timeout'/,
    );
    expect(fingerprint()).toBe(before);
  });

  it('rejects an unwritable output folder', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'not a folder');
    const r = await runKiln(['fuzz', '--compilers', 'tcc', '--tests', '1', '--out', join(file, 'out')]);
    expectCoded(r, 'KILN_FILE', /cannot create the output folder/);
    // Unwritable for lack of permission (meaningful when not running as root).
    if (process.getuid?.() !== 0) {
      const ro = join(work, 'read-only');
      mkdirSync(ro);
      chmodSync(ro, 0o555);
      expectCoded(await runKiln(['fuzz', '--compilers', 'tcc', '--tests', '1', '--out', join(ro, 'out')]), 'KILN_FILE');
    }
  });

  it('refuses a database that is not a Kiln database, and does not touch it', async () => {
    const foreign = join(work, 'foreign');
    mkdirSync(foreign);
    const db = new Database(join(foreign, 'kiln.db'));
    db.exec('CREATE TABLE accounts (id INTEGER PRIMARY KEY, owner TEXT)');
    db.close();
    const bytes = readFileSync(join(foreign, 'kiln.db'));
    const r = await runKiln(['fuzz', '--compilers', 'tcc', '--tests', '1', '--out', foreign]);
    expectCoded(r, 'KILN_DATABASE', /not a Kiln database/);
    expect(readFileSync(join(foreign, 'kiln.db')).equals(bytes)).toBe(true);
    expect(readdirSync(foreign)).toEqual(['kiln.db']);
  });

  it('rejects settings that a resumed campaign keeps, and leaves the database unchanged', async () => {
    const before = fingerprint();
    expectCoded(await runKiln(['fuzz', '--resume', '--opts', '-O3', '--out', out]), 'KILN_BAD_OPTION', /--opts/);
    expect(fingerprint()).toBe(before);
  });

  it('validates flags and config values before touching anything', async () => {
    await expectRejected(
      { compilers: '/nonexistent/bin/cc', out },
      'KILN_UNKNOWN_COMPILER',
      /no executable file at that path/,
    );
    await expectRejected({ compilers: ' , ', out }, 'KILN_BAD_OPTION', /--compilers/);
    await expectRejected({ compilers: 'tcc', opts: '', out }, 'KILN_BAD_OPTION', /--opts/);
    await expectRejected({ compilers: 'tcc', time: '5 fortnights', out }, 'KILN_BAD_OPTION', /--time/);
    await expectRejected({ compilers: 'tcc', jobs: '0', out }, 'KILN_BAD_OPTION', /--jobs/);
    await expectRejected({ compilers: 'tcc', memory: 'lots', out }, 'KILN_BAD_OPTION', /--memory/);
    await expectRejected({ compilers: 'tcc', seedStart: '-3', out }, 'KILN_BAD_OPTION', /--seed-start/);
    await expectRejected({ compilers: 'tcc', size: 'huge', out }, 'KILN_BAD_OPTION', /--size/);
    const cfg = join(work, 'policy.json');
    writeFileSync(cfg, JSON.stringify({ policy: { limits: { maxFuncs: -1 } } }));
    await expectRejected({ config: cfg, compilers: 'tcc', out }, 'KILN_BAD_CONFIG', /policy/);
    const extra = join(work, 'extra.yaml');
    writeFileSync(extra, 'compilrs: [gcc]\n');
    await expectRejected({ config: extra, out }, 'KILN_BAD_CONFIG', /field 'compilrs'/);
    expect(existsSync(join(work, 'nothing-here'))).toBe(false);
  });

  it('merges flags over the config file over the defaults', async () => {
    const cfg = join(work, 'merge.yaml');
    writeFileSync(
      cfg,
      [
        'compilers: [tcc]',
        "options: ['-O1', '-O2 -g']",
        'jobs: 3',
        'limits:',
        '  compile: { timeout: 30s, memory: 1GiB }',
        '  run: { memory: none }',
        'tests: 7',
        '',
      ].join('\n'),
    );
    const s = await resolveSettings({ config: cfg, jobs: '1', runTimeout: '5s' });
    expect(s.compilers.map((c) => c.name)).toEqual(['tcc']);
    expect(s.optionSets).toEqual(['-O1', '-O2 -g']);
    expect(s.jobs).toBe(1);
    expect(s.maxTests).toBe(7);
    expect(s.limits).toEqual({
      compile: { timeoutMs: 30_000, memoryMb: 1024 },
      run: { timeoutMs: 5000, memoryMb: undefined },
    });
    const d = await resolveSettings({ compilers: 'tcc' });
    expect(d.optionSets).toEqual(['-O0', '-O1', '-O2', '-Os', '-O3']);
    expect(d.limits).toEqual({
      compile: { timeoutMs: 120_000, memoryMb: 2048 },
      run: { timeoutMs: 10_000, memoryMb: 2048 },
    });
    expect(d.out).toBe('kiln-out');
  });

  it('kiln findings on a folder without a campaign is a coded error', async () => {
    expectCoded(await runKiln(['findings', '--out', join(work, 'nowhere')]), 'KILN_STATE', /no Kiln database/);
    expect(existsSync(join(work, 'nowhere'))).toBe(false);
  });
});

describe('kiln fuzz: bad ISA levels, flags and swarms', () => {
  let work: string;

  beforeAll(() => {
    requireTool('gcc');
    requireTool('tcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-badopts-'));
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('refuses each with one coded line before any test runs', async () => {
    const cases: [string, string, RegExp][] = [
      ['gcc', '-O2 -march=x86-64-v9', /-march=x86-64-v9/],
      ['gcc', '-O2;-O2 -fno-such-pass-4242', /refuses -fno-such-pass-4242/],
      ['tcc', '-O2 +swarm', /\+swarm only with gcc or clang \(tcc is tcc/],
      ['gcc', '-O2 +swarm=99', /\+swarm=K, with K a whole number from 1 to 64/],
    ];
    for (const [cc, opts, text] of cases) {
      const out = join(work, `out-${cases.findIndex((c) => c[1] === opts)}`);
      const r = await runKiln(['fuzz', '--compilers', cc, '--opts', opts, '--tests', '1', '--out', out]);
      expectCoded(r, 'KILN_BAD_OPTION', text);
      expect(existsSync(out), opts).toBe(false);
    }
  });
});
