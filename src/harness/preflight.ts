import { testConfiguration, type ConfigResult } from './execute.js';
import { configMissingEmulator, type Configuration, type Limits } from './matrix.js';
import { refuseUnsupportedProfiles } from './profile-probe.js';
import { TempRoot } from './tempdir.js';

/**
 * A small program every working C compiler builds and runs: the headers, types, loop, array and
 * printf format Kiln's programs rely on. Its checksum is computed below, not copied from a run.
 */
const CHECK_VALUES = [1, -2, 3, -4, 0x7fffffff] as const;
const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;

/** The source of the check program. */
export const CHECK_PROGRAM = `/* kiln: compiler check */
#include <stdint.h>
#include <stdio.h>

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x${FNV_PRIME.toString(16).toUpperCase()}ULL; }

int main(void) {
  int32_t a[${CHECK_VALUES.length}] = {${CHECK_VALUES.join(', ')}};
  uint64_t h = 0x${FNV_OFFSET.toString(16).toUpperCase()}ULL;
  int i;
  for (i = 0; i < ${CHECK_VALUES.length}; i++) h = mix(h, (uint64_t)(int64_t)a[i]);
  printf("checksum = %016llX\\n", (unsigned long long)h);
  return 0;
}
`;

/** The one line the check program prints. */
export function checkProgramOutput(): string {
  let h = FNV_OFFSET;
  for (const v of CHECK_VALUES) h = BigInt.asUintN(64, (h ^ BigInt.asUintN(64, BigInt(v))) * FNV_PRIME);
  return `checksum = ${h.toString(16).toUpperCase().padStart(16, '0')}`;
}

/** A configuration that failed the check, and why, in words. */
export interface BrokenConfiguration {
  readonly config: Configuration;
  readonly reason: string;
  /** True when the configuration works without the memory limit: the limit is what breaks it. */
  readonly memoryLimited: boolean;
  /** The option the compiler refused, when its error names one of the configuration's options. */
  readonly rejectedOption?: string;
}

/** Words of a compiler's error that refuse an option (gcc, clang, LLVM's option parser). */
const OPTION_ERROR = new RegExp(
  [
    'unrecognized command[- ]line option',
    'unknown argument',
    'Unknown command line argument',
    'bad value',
    'unknown target CPU',
    'invalid --param',
    'invalid (value|argument)',
    'not supported',
    'unsupported option',
    'is not valid for',
  ].join('|'),
  'i',
);

/**
 * The option of `c` that its compile's diagnostics refuse (`gcc: error: unrecognized
 * command-line option '-ffoo'`, `clang: error: unknown target CPU 'foo'` for `-march=foo`).
 */
export function rejectedOption(c: Configuration, stderr: string): string | undefined {
  for (const line of stderr.split('\n')) {
    if (!OPTION_ERROR.test(line)) continue;
    for (const o of [...c.options].reverse()) {
      const value = /^-[^=]+=(.+)$/.exec(o)?.[1];
      if (line.includes(`'${o}'`) || line.includes(`'${o.replace(/=.*$/, '=')}'`)) return o;
      if (value !== undefined && line.includes(`'${value}'`)) return o;
    }
  }
  return undefined;
}

/**
 * Compiles and runs {@link CHECK_PROGRAM} with every configuration under the campaign's limits
 * (`jobs` at a time) and returns those that do not print its output. A campaign with such a
 * configuration would turn every program into a finding (`--compilers /bin/false`, a memory
 * limit no compiler starts under), so the CLI refuses it. Undefined result when aborted.
 *
 * @throws KilnError `KILN_PROFILE_UNSUPPORTED` for a profile configuration its compiler cannot build.
 */
export async function checkConfigurations(
  configs: readonly Configuration[],
  limits: Limits,
  jobs: number,
  signal?: AbortSignal,
): Promise<BrokenConfiguration[] | undefined> {
  // Profile configurations of a compiler without profile-guided builds (probed once): a coded error.
  await refuseUnsupportedProfiles(configs);
  // A cross compiler whose emulator is not installed cannot run anything: say so without trying.
  const noEmulator: BrokenConfiguration[] = configs
    .filter((c) => configMissingEmulator(c) !== undefined)
    .map((c) => ({
      config: c,
      reason: `its binaries need ${configMissingEmulator(c)}, which is not on PATH (install qemu-user)`,
      memoryLimited: false,
    }));
  const runnable = configs.filter((c) => configMissingEmulator(c) === undefined);
  const temp = TempRoot.create();
  try {
    const first = await testAll(runnable, limits, jobs, temp, signal);
    if (!first) return undefined;
    const failed = first.filter((r) => r.judgement.outcome !== 'ok');
    // A configuration that works without the memory limit is broken by the limit, which the user
    // should hear about rather than about the compiler.
    const unlimited: Limits = {
      compile: { ...limits.compile, memoryMb: undefined },
      run: { ...limits.run, memoryMb: undefined },
    };
    const limited = limits.compile.memoryMb !== undefined || limits.run.memoryMb !== undefined;
    const again =
      limited && failed.length > 0
        ? await testAll(
            failed.map((r) => r.config),
            unlimited,
            jobs,
            temp,
            signal,
          )
        : [];
    if (!again) return undefined;
    return [
      ...noEmulator,
      ...failed.map((r, i) => {
        const rejected = r.run ? undefined : rejectedOption(r.config, r.compile.stderr);
        return {
          config: r.config,
          reason: describeFailure(r, limits),
          memoryLimited: again[i]?.judgement.outcome === 'ok',
          ...(rejected ? { rejectedOption: rejected } : {}),
        };
      }),
    ];
  } finally {
    temp.dispose();
  }
}

/** Tests the check program with each configuration, `jobs` at a time; undefined when aborted. */
async function testAll(
  configs: readonly Configuration[],
  limits: Limits,
  jobs: number,
  temp: TempRoot,
  signal: AbortSignal | undefined,
): Promise<ConfigResult[] | undefined> {
  const expected = checkProgramOutput();
  const results: (ConfigResult | undefined)[] = new Array(configs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < configs.length && !signal?.aborted) {
      const i = next++;
      results[i] = await testConfiguration(CHECK_PROGRAM, expected, configs[i]!, limits, temp, signal);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, configs.length)) }, worker));
  if (signal?.aborted || results.some((r) => r === undefined || r.aborted)) return undefined;
  return results as ConfigResult[];
}

/** What went wrong with the check program, in one line. */
function describeFailure(r: ConfigResult, limits: Limits): string {
  const firstLine = (text: string): string =>
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0)
      ?.slice(0, 200) ?? '';
  const j = r.judgement;
  if (!r.run) {
    if (j.outcome === 'compiler-hang')
      return (
        `compiling a ${lines()}-line program did not finish within the compile limit ` +
        `(${limits.compile.timeoutMs / 1000} s)`
      );
    const err = firstLine(r.compile.stderr);
    const status = r.compile.signal ? `killed by ${r.compile.signal}` : `exit status ${r.compile.status}`;
    if (j.detail === 'exit status 0 but no executable was written')
      return `compiling a ${lines()}-line program wrote no executable (exit status 0)`;
    return `compiling a ${lines()}-line program failed (${status})${err ? `: ${err}` : ''}`;
  }
  if (j.outcome === 'binary-hang')
    return (
      `its binary of a ${lines()}-line program did not finish within the run limit ` +
      `(${limits.run.timeoutMs / 1000} s)`
    );
  if (j.outcome === 'wrong-code')
    return (
      `its binary of a ${lines()}-line program printed '${firstLine(r.run.stdout).slice(0, 80)}', expected ` +
      `'${checkProgramOutput()}'`
    );
  const err = firstLine(r.run.stderr);
  return `its binary of a ${lines()}-line program failed (${j.detail ?? j.outcome})${err ? `: ${err}` : ''}`;
}

function lines(): number {
  return CHECK_PROGRAM.split('\n').length - 1;
}
