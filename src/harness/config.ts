import { availableParallelism, totalmem } from 'node:os';
import { MODE_CHOICES } from '../gen/mode.js';
import { z } from 'zod';
import { errBadConfig } from '../diag/errors.js';
import { profileToken } from './profile.js';

/** `90s`, `10m`, `2h`, `500ms`, or a number of seconds. */
const Duration = z.union([z.number().positive(), z.string()]).transform((v, ctx) => {
  const ms = durationMs(v);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `expected a duration such as 90s, 10m or 2h, got '${v}'` });
    return z.NEVER;
  }
  return ms;
});

/** `2GiB`, `512MiB`, `none`, or a number of MiB. */
const Memory = z.union([z.number().int().positive(), z.string()]).transform((v, ctx) => {
  const mb = memoryMb(v);
  if (mb === undefined) {
    ctx.addIssue({ code: 'custom', message: `expected a size such as 2GiB or 512MiB, or none, got '${v}'` });
    return z.NEVER;
  }
  return mb;
});

const Step = z
  .object({
    timeout: Duration.optional().describe('wall-clock limit of one step; the process group is killed when it expires'),
    memory: Memory.optional().describe(
      'address-space limit of one step (never applied to sanitizer builds); none for no limit',
    ),
  })
  .strict();

/**
 * An option set with a profile (docs/profiles.md): `{ options: '-O2', profile: true }` or
 * `profile: 'perturbed'`; it becomes the string form with the pseudo-option (`-O2 +profile`), which
 * is what the matrix, the store and `--resume` know.
 */
const ProfiledSet = z
  .object({
    options: z.string(),
    profile: z
      .union([z.boolean(), z.enum(['true', 'perturbed'])])
      .optional()
      .describe("true: the instrumented build's own profile; 'perturbed': a seeded perturbation of it"),
  })
  .strict()
  .transform((o) => {
    const kind =
      o.profile === true || o.profile === 'true' ? 'true' : o.profile === 'perturbed' ? 'perturbed' : undefined;
    return [o.options.trim(), ...(kind ? [profileToken(kind)] : [])].filter((t) => t !== '').join(' ');
  });

/** The `kiln fuzz` configuration file. Every field is optional; flags override fields. */
const FuzzConfigSchema = z
  .object({
    compilers: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe('compiler commands or paths; default: every compiler detected on PATH'),
    options: z
      .array(z.union([z.string(), ProfiledSet]))
      .min(1)
      .optional()
      .describe(
        "option sets, each a string or {options, profile: true | 'perturbed'}; default " +
          "['-O0', '-O1', '-O2', '-Os', '-O3']",
      ),
    jobs: z.number().int().min(1).optional().describe('concurrent jobs; default: one per core'),
    maxPerBucket: z
      .union([z.number().int().min(1), z.literal('none')])
      .optional()
      .describe(
        'findings stored per bucket: the first N and the smallest program, the rest counted; none for no ' +
          'cap (default 25)',
      ),
    out: z.string().min(1).optional().describe('output folder; default ./kiln-out'),
    known: z
      .string()
      .min(1)
      .optional()
      .describe(
        "a YAML file of known bugs (kiln known add writes the output folder's known.yaml): their findings are " +
          'listed as known and not reduced',
      ),
    seedStart: z
      .union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)])
      .optional()
      .describe('first seed of a new campaign'),
    tests: z.number().int().min(1).optional().describe('programs to test in all'),
    time: Duration.optional().describe('wall time of a session'),
    limits: z
      .object({ compile: Step.optional(), run: Step.optional() })
      .strict()
      .optional()
      .describe('per-step limits; defaults: compile 120s, run 10s, memory 2GiB'),
    policy: z
      .union([z.string().min(1), z.record(z.string(), z.unknown())])
      .optional()
      .describe('generation policy: a file (relative to this one) or an inline object'),
    size: z.enum(['small', 'medium', 'large']).optional().describe('program size preset'),
    mode: z
      .enum(MODE_CHOICES)
      .optional()
      .describe('generation mode: csmith, yarpgen, arith, or mixed (a mode per program)'),
  })
  .strict();

/** A validated configuration file (durations in ms, memory in MiB, `false` memory = no limit). */
export type FuzzConfig = z.output<typeof FuzzConfigSchema>;

/** Validates a parsed configuration file; throws `KILN_BAD_CONFIG` naming the first bad field. */
export function parseFuzzConfig(raw: unknown, file: string): FuzzConfig {
  const r = FuzzConfigSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys' && issue.keys.length) path.push(issue.keys[0]!);
  const field = path.join('.') || '(root)';
  throw errBadConfig(file, `field '${field}': ${issue.message}`);
}

/** Parses `90s`/`10m`/`2h`/`500ms` (a bare number is seconds) into ms; undefined when invalid. */
export function durationMs(v: number | string): number | undefined {
  if (typeof v === 'number') return v > 0 ? v * 1000 : undefined;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(v.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const ms = n * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const)[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return ms > 0 ? ms : undefined;
}

/** Parses `2GiB`/`512MiB`/`512M` (a bare number is MiB) or `none` (false); undefined when invalid. */
export function memoryMb(v: number | string): number | false | undefined {
  if (typeof v === 'number') return Number.isInteger(v) && v > 0 ? v : undefined;
  const t = v.trim();
  if (/^(none|off|unlimited)$/i.test(t)) return false;
  const m = /^(\d+(?:\.\d+)?)\s*(k|ki|kib|kb|m|mi|mib|mb|g|gi|gib|gb)?$/i.exec(t);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? 'm').toLowerCase()[0];
  const mb = unit === 'k' ? n / 1024 : unit === 'g' ? n * 1024 : n;
  return mb >= 1 ? Math.round(mb) : undefined;
}

/**
 * Memory one job may take, in MiB: its generator process (about 82 MB resident) plus the compile
 * or binary it runs (gcc -O3 on a medium program: 100-170 MB).
 */
export const JOB_MEMORY_MB = 256;

/** Jobs per core at most: more only queue for the CPU (hangs are limited by timeouts, not jobs). */
const JOBS_PER_CORE = 4;

/** The machine a campaign runs on, as far as its job bound is concerned. */
export interface MachineSize {
  readonly cores: number;
  readonly memoryMb: number;
}

/** This machine's cores and memory. */
export function thisMachine(): MachineSize {
  return { cores: availableParallelism(), memoryMb: Math.floor(totalmem() / (1 << 20)) };
}

/**
 * The most concurrent jobs a machine can run: {@link JOBS_PER_CORE} per core, and no more than
 * three quarters of its memory holds at {@link JOB_MEMORY_MB} each (at least 1).
 */
export function maxJobs(m: MachineSize = thisMachine()): number {
  return Math.max(1, Math.min(m.cores * JOBS_PER_CORE, Math.floor((m.memoryMb * 0.75) / JOB_MEMORY_MB)));
}
