#!/usr/bin/env node
// Installs the Debian packages Kiln needs, and only those that are missing.
//
//   node scripts/ensure-tools.mjs [--profile test|fuzz|bench|cross|latest] [--check] [--update]
//
// Profiles:
//   fuzz   compilers for a default campaign (gcc, clang, tcc)
//   test   what `npm test` needs: the fuzz set plus pcc (its -O levels are checked against the
//          matrix), sanitizer runtimes, valgrind, a second LLVM
//          (clang-15), whose opt-bisect output the triage parser is tested against, Frama-C
//          (kiln check's last UB detector), chromium (the `kiln report` tests open the page in
//          it, through playwright-core), and what the benchmarks compare against (csmith,
//          creduce, cvise): the tests smoke-run every `bench:*` script (test/bench/smoke-*.test.ts),
//          one cross target, m68k under qemu-user, for the cross tests and `bench:cross --smoke`,
//          and redis-server (the queue of distributed campaigns; each test starts its own)
//   bench  what `npm run bench:*` needs: the test set
//   cross  the test set plus Debian's GCC 12 cross compilers of every target Kiln models (i686
//          stands in for gcc -m32: Debian's gcc-multilib conflicts with the cross compilers)
//   latest the fuzz set, plus a root of Debian's development suite (sid) in Kiln's cache folder,
//          built with debootstrap, holding the newest compilers (scripts/latest.mjs: gcc-16,
//          gcc-snapshot, which is GCC trunk, and clang-22, with clang's sanitizer runtime; and
//          where the suite has them gcc-13 … gcc-15, clang-19 … clang-23 and the alpha cross
//          compilers), with one launcher per compiler (scripts/roots.mjs) that
//          `kiln compilers` and `kiln fuzz --compilers gcc-snapshot,clang-22` find by name.
//          Only what is missing is done; `--update` also upgrades the root (new snapshots land
//          every few weeks) and records the versions it had before.
//
// As root, missing packages are installed with `apt-get install -y` (after one
// `apt-get update`). Otherwise the script prints the command to run and exits 1.
// `--check` (used by `npm test`) installs as root too, but is silent when nothing is missing.
import { spawnSync } from 'node:child_process';
import { ensureLatestRoot } from './latest.mjs';

// Each profile extends the one before it, so a tool the tests need is never missing from bench.
const FUZZ = ['gcc', 'clang', 'tcc'];
const TEST = [
  ...FUZZ,
  'pcc',
  'libclang-rt-14-dev',
  // llvm-profdata-14: clang-14's profile-guided configurations merge their raw profiles with it.
  'llvm-14',
  // lld-14: clang's -flto configurations link with lld (src/harness/matrix.ts, withImplicitOptions).
  'lld-14',
  'valgrind',
  'clang-15',
  'csmith',
  'libcsmith-dev',
  'creduce',
  'cvise',
  'frama-c-base',
  'chromium',
  'qemu-user',
  'gcc-12-m68k-linux-gnu',
  'gcc-12-powerpc-linux-gnu',
  'gcc-12-s390x-linux-gnu',
  'redis-server',
];
const CROSS_TRIPLETS = [
  'i686-linux-gnu',
  'm68k-linux-gnu',
  'powerpc-linux-gnu',
  'aarch64-linux-gnu',
  'riscv64-linux-gnu',
  'arm-linux-gnueabihf',
  's390x-linux-gnu',
  'mips-linux-gnu',
  'alpha-linux-gnu',
  'hppa-linux-gnu',
];
const CROSS = [...TEST, ...CROSS_TRIPLETS.map((t) => `gcc-12-${t}`).filter((p) => !TEST.includes(p))];
const PROFILES = {
  fuzz: FUZZ,
  test: TEST,
  bench: TEST,
  cross: CROSS,
  // The host's older versions complete each version line the root starts (kiln triage):
  // GCC 11 and 12, LLVM 13 to 16, and the alpha cross gcc-12 beside the root's alpha gccs.
  latest: [
    ...FUZZ,
    'debootstrap',
    'debian-archive-keyring',
    'gcc-11',
    'clang-13',
    'clang-15',
    'clang-16',
    'gcc-12-alpha-linux-gnu',
    'qemu-user',
  ],
};

function parseArgs(argv) {
  const opts = { profile: 'test', quiet: false, update: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--profile') opts.profile = argv[++i];
    else if (a.startsWith('--profile=')) opts.profile = a.slice('--profile='.length);
    else if (a === '--check') opts.quiet = true;
    else if (a === '--update') opts.update = true;
    else if (a === '-h' || a === '--help') {
      console.log('usage: ensure-tools.mjs [--profile test|fuzz|bench|cross|latest] [--check] [--update]');
      console.log('  --profile latest  also build or complete the sid root of the newest compilers (needs root)');
      console.log(
        '  --update          with latest: upgrade the root to the suite of today, keeping the old versions on record',
      );
      process.exit(0);
    } else {
      console.error(`ensure-tools: unknown argument '${a}' (expected --profile NAME or --check)`);
      process.exit(2);
    }
  }
  if (!(opts.profile in PROFILES)) {
    console.error(`ensure-tools: unknown profile '${opts.profile}' (known: ${Object.keys(PROFILES).join(', ')})`);
    process.exit(2);
  }
  return opts;
}

function installed(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (r.status !== 0) {
    console.error(`ensure-tools: '${cmd} ${args.join(' ')}' failed with status ${r.status}`);
    process.exit(1);
  }
}

const opts = parseArgs(process.argv.slice(2));
const hasDpkg = spawnSync('dpkg-query', ['--version']).status === 0;
if (!hasDpkg) {
  console.error('ensure-tools: dpkg-query not found; this script supports Debian-based systems only.');
  console.error(`ensure-tools: install these packages by hand: ${PROFILES[opts.profile].join(' ')}`);
  process.exit(1);
}
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (opts.profile === 'latest' && !isRoot) {
  // Checked first: the root needs chroot and mounts whatever the host already has.
  console.error(
    'ensure-tools: error[KILN_ROOT_PRIVILEGES]: the latest profile builds a Debian root with debootstrap ' +
      'and chroot, which need root privileges',
  );
  console.error('ensure-tools: hint: run it as root: sudo npm run setup -- --profile latest');
  process.exit(1);
}
const missing = PROFILES[opts.profile].filter((p) => !installed(p));
if (missing.length === 0) {
  if (!opts.quiet) console.log(`ensure-tools: all ${opts.profile} host tools present`);
  if (opts.profile === 'latest') ensureLatestRoot({ update: opts.update });
  process.exit(0);
}
if (!isRoot) {
  console.error(`ensure-tools: missing Debian packages: ${missing.join(' ')}`);
  console.error(`ensure-tools: run: sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`);
  process.exit(1);
}
console.log(`ensure-tools: installing ${missing.join(' ')}`);
run('apt-get', ['update']);
run('apt-get', ['install', '-y', ...missing]);
const still = missing.filter((p) => !installed(p));
if (still.length > 0) {
  console.error(`ensure-tools: still missing after install: ${still.join(' ')}`);
  process.exit(1);
}
if (opts.profile === 'latest') ensureLatestRoot({ update: opts.update });
