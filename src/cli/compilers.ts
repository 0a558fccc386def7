import type { Command } from 'commander';
import { detectCompilers, missingEmulator, resolveCompilers } from '../harness/compilers.js';
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
        'builds (gcc-14 … gcc-16, gcc-snapshot, clang-19 … clang-22), with their versions',
    )
    .argument('[names...]', 'check these compiler commands or paths instead of detecting')
    .option(
      '--json',
      'print a JSON array of {name, command, realPath, family, version, target?, emulator?, root?, profile}',
    )
    .action(async (names: string[], flags: CompilersFlags) => {
      try {
        const list = names.length ? await resolveCompilers(names) : await detectCompilers();
        // Which profile configurations each supports (+profile, +profile=perturbed): probed, all at once.
        const profiles = await Promise.all(list.map((c) => profileSupport(c)));
        if (flags.json) {
          const rows = list.map((c, i) => ({ ...c, profile: profiles[i] }));
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
          process.stdout.write(`${c.name.padEnd(width)}  ${c.version}\n${' '.repeat(width)}  ${where}\n`);
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
          process.stdout.write(`${' '.repeat(width)}  ${profileColumn(profiles[i]!)}\n`);
        }
      } catch (e) {
        reportAndExit(e);
      }
    });
}

/** `profile: true, perturbed`, or `profile: none (why)`. */
function profileColumn(p: ProfileSupport): string {
  const kinds = [...(p.true ? ['true'] : []), ...(p.perturbed ? ['perturbed'] : [])];
  return kinds.length ? `profile: ${kinds.join(', ')}` : `profile: none (${p.reason ?? 'the probe failed'})`;
}
