// Flag minimisation (src/triage/minimise-command.ts): a fake gcc miscompiles only when one given
// flag is among those a swarm test drew; its finding minimises to that flag, the bucket is keyed
// by the minimal command, and repro.sh reproduces with it.
import { spawnSync } from 'node:child_process';
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TempRoot } from '../../src/harness/tempdir.js';
import { triageFinding } from '../../src/triage/triage.js';
import { runKiln } from '../harness/support/cli.js';
import { requireTool } from '../support/cc.js';
import { findingJson, PROGRAM } from './support.js';

/** The flags the fake's --help=optimizers lists; it refuses their -fno- forms and every --param. */
const FLAGS = [
  '-fgcse',
  '-fipa-cp',
  '-fpeel-loops',
  '-fsplit-loops',
  '-ftree-pre',
  '-ftree-slp-vectorize',
  '-ftree-vrp',
  '-funroll-loops',
];
const CULPRIT = '-fsplit-loops';

let work: string;
let temp: TempRoot;
let fake: string;

beforeAll(() => {
  requireTool('gcc');
  work = mkdtempSync(join(tmpdir(), 'kiln-swarm-min-'));
  temp = TempRoot.create();
  mkdirSync(join(work, 'bin'));
  fake = join(work, 'bin', 'gcc-swarm-fake');
  const help = ['The following options control optimizations:', ...FLAGS.map((f) => `  ${f.padEnd(28)}\t\t[disabled]`)];
  writeFileSync(
    fake,
    `#!/bin/sh
for a; do
  case $a in
    --help=optimizers) printf '%s\\n' ${help.map((l) => `'${l}'`).join(' ')}; exit 0;;
    --param*|-fno-*) echo "gcc-swarm-fake: error: unrecognized command-line option '$a'" >&2; exit 1;;
  esac
done
case " $* " in
  *" ${CULPRIT} "*)
    # The bug: a wrong checksum (Kiln's programs, and the hand-made one's -DKILN_BUG).
    srcs=; out=; prev=
    for a; do case $a in *.c) srcs="$srcs $a";; esac; [ "$prev" = -o ] && out=$a; prev=$a; done
    fakes=
    for f in $srcs; do
      sed 's/\\(kiln_crc = 0x[0-9A-F]*ULL\\)/\\1 + 1/' "$f" > "$f.fake.c" || exit 1
      fakes="$fakes $f.fake.c"
    done
    exec gcc -O0 -DKILN_BUG $fakes -o "$out" -lm;;
esac
exec gcc "$@"
`,
  );
  chmodSync(fake, 0o755);
});

afterAll(() => {
  temp?.dispose();
  if (work) rmSync(work, { recursive: true, force: true });
});

function repro(dir: string): number | null {
  return spawnSync('sh', [join(dir, 'repro.sh')], { cwd: dir, encoding: 'utf8' }).status;
}

describe('minimising a swarm finding', () => {
  it('finds the one flag of the 8 drawn, keys the bucket by it, and repro.sh uses it', async () => {
    const drawn = [...FLAGS];
    const options = `-O2 ${drawn.join(' ')}`;
    const dir = join(work, 'f8');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'prog.c'), PROGRAM);
    const json = {
      ...findingJson({ id: 'f8', compiler: 'gcc-swarm-fake', compilerPath: fake, options }),
      bucket: 'wrong-code:gcc-swarm-fake:-O2 +swarm',
      swarm: { set: '-O2 +swarm', drawn },
    };
    writeFileSync(join(dir, 'finding.json'), `${JSON.stringify(json, null, 2)}\n`);
    writeFileSync(join(dir, 'repro.sh'), '#!/bin/sh\nexit 0\n');
    const lines: string[] = [];
    await triageFinding(dir, { temp, versions: false, onProgress: (l) => lines.push(l) });
    const after = JSON.parse(readFileSync(join(dir, 'finding.json'), 'utf8')) as {
      minimised: { options: string[]; changes: string[]; tests: number };
      bucket: string;
      campaignBucket: string;
      options: string;
    };
    // The culprit alone, at the lowest level where it still shows (the fake miscompiles at any).
    expect(after.minimised.options).toEqual(['-O0', CULPRIT]);
    expect(after.minimised.changes.filter((c) => c.startsWith('dropped -f'))).toHaveLength(7);
    expect(after.minimised.tests).toBeLessThan(20);
    expect(after.bucket).toBe(`wrong-code:gcc-swarm-fake:-O0 ${CULPRIT}`);
    expect(after.campaignBucket).toBe('wrong-code:gcc-swarm-fake:-O2 +swarm');
    expect(after.options).toBe(options); // the campaign's, kept
    const script = readFileSync(join(dir, 'repro.sh'), 'utf8');
    expect(script).toContain(CULPRIT);
    for (const f of FLAGS.filter((x) => x !== CULPRIT)) expect(script).not.toContain(` ${f} `);
    expect(repro(dir)).toBe(0);
    expect(existsSync(join(dir, 'repro.campaign.sh'))).toBe(true);
    expect(lines.some((l) => l.includes('minimal command'))).toBe(true);
    // A second triage reads the stored minimisation: no second search.
    const again: string[] = [];
    await triageFinding(dir, { temp, versions: false, onProgress: (l) => again.push(l) });
    expect(again.some((l) => l.includes('minimising'))).toBe(false);
  });

  it('from a campaign: the drawn flags are stored, repro.sh reproduces, triage minimises to the flag', async () => {
    const out = join(work, 'out');
    const policy = join(work, 'plain.json');
    writeFileSync(policy, JSON.stringify({ features: { vectors: false, int128: false, bitInt: false } }));
    const r = await runKiln(
      [
        'fuzz',
        '--compilers',
        fake,
        '--opts',
        '-O2 +swarm=8',
        '--tests',
        '6',
        '--seed-start',
        '40',
        '--mode',
        'csmith',
        '--size',
        'small',
        '--policy',
        policy,
        '--jobs',
        '2',
        '--out',
        out,
      ],
      { env: { KILN_CACHE_DIR: join(work, 'cache') } },
    );
    expect(r.status, r.stderr).toBe(0);
    const ids = readdirSync(join(out, 'findings'));
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      const dir = join(out, 'findings', id);
      const f = JSON.parse(readFileSync(join(dir, 'finding.json'), 'utf8')) as {
        options: string;
        bucket: string;
        swarm: { set: string; drawn: string[] };
      };
      expect(f.swarm.set).toBe('-O2 +swarm'); // K = 8 is the default, shown as +swarm
      expect(f.swarm.drawn).toContain(CULPRIT);
      expect(f.options).toBe(['-O2', ...f.swarm.drawn].join(' '));
      expect(f.bucket).toBe('wrong-code:gcc-swarm-fake:-O2 +swarm');
      expect(repro(dir)).toBe(0);
    }
    const dir = join(out, 'findings', ids[0]!);
    const t = await runKiln(['triage', dir, '--no-versions'], { env: { KILN_CACHE_DIR: join(work, 'cache') } });
    expect(t.status, t.stderr).toBe(0);
    const m = (JSON.parse(readFileSync(join(dir, 'finding.json'), 'utf8')) as { minimised: { options: string[] } })
      .minimised;
    expect(m.options.filter((o) => o.startsWith('-f'))).toEqual([CULPRIT]);
    expect(repro(dir)).toBe(0);
  });
});
