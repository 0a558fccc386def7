// Which compilers can build with a profile, probed once per compiler and process (as EMI's facts
// are): the whole path of a profile configuration, on a small program with a loop and a branch.
import { KilnError } from '../diag/errors.js';
import type { Compiler } from './compilers.js';
import { testConfiguration } from './execute.js';
import { buildMatrix, type Configuration, type Limits } from './matrix.js';
import { profdataTool, profileFamily, profileToken, type ProfileKind } from './profile.js';
import { TempRoot } from './tempdir.js';

/** What a compiler supports: `profile: true` and `profile: perturbed`, and why not when it does not. */
export interface ProfileSupport {
  readonly true: boolean;
  readonly perturbed: boolean;
  readonly reason?: string;
}

const PROBE_N = 1000;

/** The probe's program: a loop and a branch, so the profile has counts to perturb. */
const PROBE_PROGRAM = `/* kiln: profile probe */
#include <stdio.h>

static long step(long s, int i) { return (i % 3 == 0) ? s + 2 * i : s - i; }

int main(void) {
  long s = 0;
  int i;
  for (i = 0; i < ${PROBE_N}; i++) s = step(s, i);
  printf("checksum = %ld\\n", s);
  return 0;
}
`;

function probeOutput(): string {
  let s = 0;
  for (let i = 0; i < PROBE_N; i++) s = i % 3 === 0 ? s + 2 * i : s - i;
  return `checksum = ${s}`;
}

/** Generous limits: a busy machine must not make a working compiler look unable. */
const PROBE_LIMITS: Limits = {
  compile: { timeoutMs: 120_000, memoryMb: undefined },
  run: { timeoutMs: 30_000, memoryMb: undefined },
};

/** Why a compiler cannot have profile configurations without trying one (undefined when it might). */
function staticProfileProblem(c: Compiler): string | undefined {
  const family = profileFamily(c);
  if (!family) return `${c.family} has no profile-guided builds that Kiln drives (gcc and clang drivers only)`;
  if (family === 'clang' && !profdataTool(c))
    return `no llvm-profdata of its LLVM version on PATH or in the sid root to merge its raw profiles`;
  return undefined;
}

const cache = new Map<string, Promise<ProfileSupport>>();

/**
 * Whether a compiler builds, runs and reads back a profile (`profile: true`) and a perturbed one,
 * tried on a small program at -O0 with the same code the campaign runs. Cached per compiler
 * (path and version) for the life of the process.
 */
export function profileSupport(c: Compiler): Promise<ProfileSupport> {
  const key = `${c.realPath}\0${c.version}`;
  let p = cache.get(key);
  if (!p) cache.set(key, (p = probe(c)));
  return p;
}

async function probe(c: Compiler): Promise<ProfileSupport> {
  const problem = staticProfileProblem(c);
  if (problem) return { true: false, perturbed: false, reason: problem };
  const temp = TempRoot.create();
  try {
    const kinds: ProfileKind[] = ['true', 'perturbed'];
    const configs = buildMatrix(
      [c],
      kinds.map((k) => `-O0 ${profileToken(k)}`),
    );
    const results = await Promise.all(
      configs.map((cfg) => testConfiguration(PROBE_PROGRAM, probeOutput(), cfg, PROBE_LIMITS, temp)),
    );
    const works = results.map((r) => r.judgement.outcome === 'ok');
    const failed = results.find((r) => r.judgement.outcome !== 'ok');
    const why = failed
      ? `${failed.config.optionsText} fails on a ${PROBE_PROGRAM.split('\n').length - 1}-line program: ` +
        `${failed.judgement.detail ?? failed.judgement.outcome}`
      : undefined;
    return { true: works[0]!, perturbed: works[1]!, ...(why ? { reason: why.slice(0, 300) } : {}) };
  } finally {
    temp.dispose();
  }
}

/**
 * Refuses profile configurations their compiler cannot run (`KILN_PROFILE_UNSUPPORTED`), before a
 * campaign starts: tcc and pcc have no profile-guided builds, a clang needs its llvm-profdata, and
 * the probe must pass. Configurations without a profile are not looked at.
 */
export async function refuseUnsupportedProfiles(configs: readonly Configuration[]): Promise<void> {
  refuseStaticProfileProblems(configs);
  const profiled = configs.filter((c) => c.profile !== undefined);
  const support = await Promise.all(profiled.map((c) => profileSupport(c.compiler)));
  const bad = profiled.flatMap((config, i) =>
    support[i]![config.profile!] ? [] : [{ config, reason: support[i]!.reason ?? 'the probe failed' }],
  );
  if (bad.length > 0) throw errProfileUnsupported(bad);
}

/**
 * The part of {@link refuseUnsupportedProfiles} that needs no compile (tcc, pcc, a clang without
 * its llvm-profdata): run while the flags are checked, before anything is written.
 */
export function refuseStaticProfileProblems(configs: readonly Configuration[]): void {
  const bad = configs.flatMap((config) => {
    const reason = config.profile ? staticProfileProblem(config.compiler) : undefined;
    return reason ? [{ config, reason }] : [];
  });
  if (bad.length > 0) throw errProfileUnsupported(bad);
}

function errProfileUnsupported(bad: readonly { config: Configuration; reason: string }[]): KilnError {
  const first = bad[0]!;
  throw new KilnError(
    'KILN_PROFILE_UNSUPPORTED',
    `${first.config.compiler.name} ${first.config.optionsText}: ${first.reason}` +
      (bad.length > 1 ? ` (and ${bad.length - 1} more configuration${bad.length > 2 ? 's' : ''})` : ''),
    `leave +profile out for that compiler ('kiln compilers' says which support it); clang needs ` +
      `llvm-profdata-N of its version and its profile runtime (libclang-rt-N-dev)`,
  );
}
