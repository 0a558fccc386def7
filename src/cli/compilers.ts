import type { Command } from 'commander';
import {
  detectCompilers,
  missingEmulator,
  resolveCompilers,
  snapshotDate,
  type Compiler,
} from '../harness/compilers.js';
import { isaLevels, type IsaProbe } from '../harness/isa.js';
import { profileSupport, type ProfileSupport } from '../harness/profile-probe.js';
import { unusableRootCompilers } from '../harness/roots.js';
import { reportAndExit } from './util.js';

interface CompilersFlags {
  json?: boolean;
}

/** Registers `kiln compilers`. */
export function registerCompilers(program: Command): void {
  program
    .command('compilers')
    .description(
      'list the C compilers on PATH (gcc, gcc-N, clang, clang-N, tcc, pcc, cc; cross <triplet>-gcc[-N] with ' +
        'the qemu that runs their binaries) and those of the sid root that `npm run setup -- --profile latest` ' +
        'builds (gcc-13 … gcc-16, gcc-snapshot, clang-19 … clang-23, clang-24 = LLVM trunk), with their versions, ' +
        'the ISA levels (-march=x86-64-v2 … v4, native) whose binaries run on this machine, and profile support',
    )
    .argument('[names...]', 'check these compiler commands or paths instead of detecting')
    .option(
      '--json',
      'print a JSON array of {name, command, realPath, family, version, target?, emulator?, root?, snapshot?, ' +
        'isa?, profile}',
    )
    .action(async (names: string[], flags: CompilersFlags) => {
      try {
        const list = names.length ? await resolveCompilers(names) : await detectCompilers();
        // Which profile configurations each supports (+profile, +profile=perturbed): probed, all at once.
        const profiles = await Promise.all(list.map((c) => profileSupport(c)));
        // Which ISA levels run here (host gcc and clang): probed once per compiler and CPU, cached.
        const isas = await Promise.all(list.map((c) => (hasIsaLevels(c) ? isaLevels(c) : Promise.resolve(undefined))));
        if (flags.json) {
          const rows = list.map((c, i) => ({
            ...c,
            ...(snapshotDate(c) ? { snapshot: snapshotDate(c) } : {}),
            ...(isas[i] ? { isa: Object.fromEntries(isas[i]!.map((l) => [l.level, l.probe])) } : {}),
            profile: profiles[i],
          }));
          process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
          return;
        }
        if (!names.length) {
          for (const u of unusableRootCompilers())
            process.stderr.write(
              `kiln: ${u.name} left out: error[${u.problem.code}]: ${u.problem.message} (hint: ${u.problem.hint})\n`,
            );
        }
        if (list.length === 0) {
          process.stdout.write('no C compiler found on PATH (looked for gcc, gcc-N, clang, clang-N, tcc, pcc, cc)\n');
          process.exitCode = 1;
          return;
        }
        const width = Math.max(...list.map((c) => c.name.length));
        for (const [i, c] of list.entries()) {
          const where = c.command === c.realPath ? c.command : `${c.command} -> ${c.realPath}`;
          const snapshot = snapshotDate(c);
          const trunk = snapshot ? `  (${c.family === 'clang' ? 'LLVM' : 'GCC'} trunk snapshot of ${snapshot})` : '';
          process.stdout.write(`${c.name.padEnd(width)}  ${c.version}${trunk}\n${' '.repeat(width)}  ${where}\n`);
          // Root compilers: where they really are (the command above is their launcher).
          if (c.root)
            process.stdout.write(
              `${' '.repeat(width)}  from the ${c.root.suite} root ${c.root.path} (${c.root.command}), ` +
                `linked statically\n`,
            );
          // Cross compilers: which model, and how their binaries run (kiln fuzz tests them only when named).
          if (c.target !== undefined) {
            const run = c.emulator
              ? `runs under ${c.emulator.join(' ')}`
              : `needs ${missingEmulator(c)} (not on PATH; install qemu-user)`;
            process.stdout.write(`${' '.repeat(width)}  target ${c.target}, ${run}\n`);
          }
          if (isas[i]) process.stdout.write(`${' '.repeat(width)}  ${isaColumn(isas[i]!)}\n`);
          process.stdout.write(`${' '.repeat(width)}  ${profileColumn(profiles[i]!)}\n`);
        }
      } catch (e) {
        reportAndExit(e);
      }
    });
}

/** Host x86-64 gcc and clang take the ISA levels (cross compilers have their own ISAs). */
function hasIsaLevels(c: Compiler): boolean {
  return (c.family === 'gcc' || c.family === 'clang') && c.target === undefined;
}

/** `ISA levels: x86-64-v2 x86-64-v3 x86-64-v4 (compile-only: SIGILL) native=avx512`. */
function isaColumn(levels: readonly { level: string; probe: IsaProbe }[]): string {
  const words = levels.map(({ level, probe }) => {
    const name = level === 'native' && probe.kind !== 'rejected' ? `native=${probe.built}` : level;
    if (probe.kind === 'runs') return name;
    if (probe.kind === 'compile-only') return `${name} (compile-only: ${probe.reason})`;
    return `${level} (rejected: ${probe.reason})`;
  });
  const all = levels.every((l) => l.probe.kind === 'runs');
  return `ISA levels: ${words.join(', ')}${all ? ' (all run here)' : ''}`;
}

/** `profile: true, perturbed`, or `profile: none (why)`. */
function profileColumn(p: ProfileSupport): string {
  const kinds = [...(p.true ? ['true'] : []), ...(p.perturbed ? ['perturbed'] : [])];
  return kinds.length ? `profile: ${kinds.join(', ')}` : `profile: none (${p.reason ?? 'the probe failed'})`;
}
