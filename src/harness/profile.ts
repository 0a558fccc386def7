// Profile-guided configurations (docs/profiles.md). Kiln's programs take no input and always run
// the same way, so the profile of one instrumented run is the program's exact profile, and any
// profile, exact or perturbed, must leave the output alone. This file holds the option syntax,
// the compilers' flags and the tools; the build itself is in execute.ts, the perturbation in
// profile-perturb.ts, the per-compiler probe in profile-probe.ts.
import { createHash } from 'node:crypto';
import { errBadOption } from '../diag/errors.js';
import { findOnPath, launcherIn, type Compiler } from './compilers.js';

/** `true`: the instrumented build's own profile; `perturbed`: a seeded perturbation of it. */
export type ProfileKind = 'true' | 'perturbed';

/** The pseudo-option of an option set that asks for a profile (never passed to the compiler). */
const PROFILE_TOKEN = '+profile';

/** The pseudo-option of a profile kind: `+profile` or `+profile=perturbed`. */
export function profileToken(kind: ProfileKind): string {
  return kind === 'true' ? PROFILE_TOKEN : `${PROFILE_TOKEN}=perturbed`;
}

/**
 * Splits an option set's tokens into the compiler's options and the profile pseudo-option:
 * `+profile` (or `+profile=true`) and `+profile=perturbed`. Any other `+` token, or two profile
 * tokens, is refused (`KILN_BAD_OPTION`): a typo must not reach the compiler as a file name.
 */
export function splitProfileToken(tokens: readonly string[]): { options: string[]; profile?: ProfileKind } {
  const options: string[] = [];
  let profile: ProfileKind | undefined;
  for (const t of tokens) {
    if (!t.startsWith('+')) {
      options.push(t);
      continue;
    }
    const m = /^\+profile(?:=(true|perturbed))?$/.exec(t);
    if (!m || profile !== undefined)
      throw errBadOption('--opts', tokens.join(' '), 'at most one of the pseudo-options +profile, +profile=perturbed');
    profile = m[1] === 'perturbed' ? 'perturbed' : 'true';
  }
  return profile ? { options, profile } : { options };
}

/** The file a clang build under test reads its profile from (in the compile folder). */
export const PROFDATA_FILE = 'prog.profdata';

/** The file a perturbed clang profile is stored as in a finding folder (llvm-profdata's text form). */
export const PROFTEXT_FILE = 'profile.proftext';

/** How a stored gcc profile file is named: the .gcda file base64-encoded (finding folders hold text). */
export const GCDA_STORED_SUFFIX = '.base64';

/** Whether a compiler family has profile-guided builds Kiln drives (gcc and clang drivers). */
export function profileFamily(c: Compiler): 'gcc' | 'clang' | undefined {
  return c.family === 'gcc' || c.family === 'clang' ? c.family : undefined;
}

/**
 * The flag of the instrumented build. gcc: `-fprofile-generate` without a folder, so each
 * translation unit's .gcda goes next to where its object would (the compile folder, by absolute
 * path, which the run reaches from its own folder); the default `-fprofile-update=single` counts
 * exactly in Kiln's single-threaded programs. clang: `-fprofile-instr-generate` without a file
 * name: the sandbox's `env -i` leaves LLVM_PROFILE_FILE unset, so the runtime writes
 * `default.profraw` in the run folder, the same name on every run.
 */
export function instrumentFlags(c: Compiler): string[] {
  return profileFamily(c) === 'clang' ? ['-fprofile-instr-generate'] : ['-fprofile-generate'];
}

/** What clang's profile runtime writes in the run folder (see {@link instrumentFlags}). */
export const PROFRAW_FILE = 'default.profraw';

/**
 * The flags of the build under test. gcc reads `<aux name>.gcda` from the compile folder; with a
 * perturbed profile it gets `-fprofile-correction`, since counts that break flow conservation
 * are otherwise an error ("corrupted profile info"). No warning needs silencing: the profile is
 * always of the same source with the same options, so the checksums match (`-Wcoverage-mismatch`,
 * an error by default, cannot fire) and every translation unit that ran has its file.
 * clang reads the merged {@link PROFDATA_FILE}; perturbed counts keep the functions' hashes, so
 * `-Wprofile-instr-out-of-date` cannot fire either.
 */
export function profileUseFlags(c: Compiler, kind: ProfileKind): string[] {
  if (profileFamily(c) === 'clang') return [`-fprofile-instr-use=${PROFDATA_FILE}`];
  return kind === 'perturbed' ? ['-fprofile-use', '-fprofile-correction'] : ['-fprofile-use'];
}

/** The LLVM major version of a clang (`Debian clang version 14.0.6` → 14). */
function clangMajor(c: Compiler): number | undefined {
  const m = /clang version (\d+)/.exec(c.version);
  return m ? Number(m[1]) : undefined;
}

/**
 * The llvm-profdata that reads this clang's raw profiles: `llvm-profdata-N` of the same major
 * version (the raw format changes between versions), else undefined. On PATH, its name is what
 * the campaign and repro.sh run (the compile step keeps PATH); else the launcher the latest
 * profile's set-up writes for the root's (the newest clangs' own llvm-profdata), by its path.
 */
export function profdataTool(c: Compiler, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const major = clangMajor(c);
  if (major === undefined) return undefined;
  const name = `llvm-profdata-${major}`;
  return findOnPath(name, env) ? name : launcherIn(name, env);
}

/**
 * The seed of a perturbation: the program's text and the configuration's options (not the
 * compiler's path or name, which differ between machines), so the same program and option set
 * give a byte-identical perturbed profile anywhere.
 */
export function perturbationSeed(sources: readonly { name: string; content: string }[], options: string): string {
  const h = createHash('sha256');
  for (const s of sources) h.update(`${s.name}\0${s.content}\0`);
  h.update(options);
  return h.digest('hex');
}

/** A file of a perturbed profile as a finding folder stores it (text: see {@link GCDA_STORED_SUFFIX}). */
export interface ProfileFile {
  readonly name: string;
  readonly content: string;
}

/** What a profile configuration's test did with its profile. */
export interface ProfileResult {
  /** `instrumented`: the instrumented build failed (compile or run), and the result is its judgement. */
  readonly stage: 'instrumented' | 'use';
  /** The perturbed profile the build under test read (its files, as a finding folder stores them). */
  readonly files?: readonly ProfileFile[];
}
