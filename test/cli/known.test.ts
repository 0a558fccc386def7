// Known bugs (src/triage/known.ts): `kiln known add` records a finding's crash signature with a
// note; a later campaign that meets the same crash lists it as known and does not reduce it; a
// broken known-bugs file stops the campaign with a coded error.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runKiln } from '../harness/support/cli.js';
import { writeFake } from '../harness/support/fakes.js';

const NOTE = 'https://gcc.gnu.org/bugzilla/show_bug.cgi?id=999999';
const BUCKET = 'compiler-crash:gcc:internal compiler error: in expand_expr_real_1, at expr.cc';

let work: string;
let fake: string;

function campaign(out: string, seedStart: number, extra: readonly string[] = [], compilers = `gcc,${fake}`, tests = 2) {
  return runKiln([
    'fuzz',
    '--compilers',
    compilers,
    '--opts',
    '-O0',
    '--tests',
    String(tests),
    '--seed-start',
    String(seedStart),
    '--mode',
    'csmith',
    '--size',
    'small',
    '--jobs',
    '1',
    '--out',
    out,
    ...extra,
  ]);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'kiln-known-'));
  // An ICE on seeds 2 and 4 that names the same place both times: one bug, one bucket.
  fake = writeFake(join(work, 'bin'), 'fake-ice', 'ice', [2, 4]);
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('kiln known', () => {
  it('sets a reported crash aside: listed as known, not reduced again', async () => {
    const first = join(work, 'first');
    const r1 = await campaign(first, 1);
    expect(r1.status, r1.stderr).toBe(0);
    const [id] = readdirSync(join(first, 'findings'));
    expect(id).toBeDefined();
    const finding = join(first, 'findings', id!);

    const add = await runKiln(['known', 'add', finding, '--note', NOTE]);
    expect(add.status, add.stderr).toBe(0);
    expect(add.stdout).toContain(`added ${BUCKET}`);
    expect(add.stdout).toContain('1 findings of');
    const file = join(first, 'known.yaml');
    const entries = parse(readFileSync(file, 'utf8')) as { key: string; note: string; seen: string[] }[];
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ key: BUCKET, note: NOTE });
    expect(entries[0]!.seen[0]).toMatch(/^fake-ice /);
    // Adding it again updates the entry instead of repeating it.
    const again = await runKiln(['known', 'add', finding, '--note', NOTE]);
    expect(again.stdout).toContain(`updated ${BUCKET}`);
    expect(parse(readFileSync(file, 'utf8'))).toHaveLength(1);

    const listed = await runKiln(['findings', '--out', first]);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('known bugs (kiln known list):');
    expect(listed.stdout).toContain(`known: ${NOTE}  ${BUCKET}  (1 findings on fake-ice)`);

    // A second campaign that names the file in its configuration meets the crash on seed 4.
    const config = join(work, 'kiln.yaml');
    writeFileSync(config, `known: ${file}\n`);
    const second = join(work, 'second');
    const r2 = await campaign(second, 3, ['--config', config, '--reduce']);
    expect(r2.status, r2.stderr).toBe(0);
    expect(r2.stdout).toContain(`[known: ${NOTE}]`);
    expect(r2.stdout).toContain("1 of this session's findings are known bugs (not reduced)");
    const [id2] = readdirSync(join(second, 'findings'));
    // Not reduced: no reduced program and no bundle beside the finding.
    expect(readdirSync(join(second, 'findings', id2!)).sort()).toEqual(['finding.json', 'prog.c', 'repro.sh']);
    const json = await runKiln(['findings', '--out', second, '--json']);
    const rows = JSON.parse(json.stdout) as { bucket: string; known: string | null }[];
    expect(rows).toEqual([expect.objectContaining({ bucket: BUCKET, known: NOTE })]);

    // A newer gcc of the same family compiles the program at the same options without the crash:
    // the known bug is reported as fixed there.
    const newer = join(work, 'bin', 'gcc-99');
    writeFileSync(
      newer,
      '#!/bin/sh\ncase " $* " in *" --version "*) echo "gcc-99 (Fake) 99.1.0"; exit 0;; esac\nexec gcc "$@"\n',
      { mode: 0o755 },
    );
    const third = join(work, 'third');
    const r3 = await campaign(third, 4, ['--config', config], `${fake},${newer}`, 1);
    expect(r3.status, r3.stderr).toBe(0);
    expect(r3.stdout).toContain(`[known: ${NOTE}; gcc-99 compiles it: fixed there]`);
    const folded = await runKiln(['findings', '--out', third]);
    expect(folded.stdout).toContain('fixed in gcc-99: the same program compiled cleanly there');
  });

  it('refuses a broken known-bugs file with a coded error and a hint', async () => {
    const dir = join(work, 'broken');
    mkdirSync(dir);
    const file = join(dir, 'known.yaml');
    writeFileSync(file, '- key: compiler-crash:gcc:x\n');
    const config = join(dir, 'kiln.yaml');
    writeFileSync(config, `known: ${file}\n`);
    const r = await campaign(join(dir, 'out'), 1, ['--config', config]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/error\[KILN_BAD_CONFIG\]: .*known\.yaml: known bugs: entry 1 field 'note'/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'out', 'kiln.db'))).toBe(false);
  });
});
