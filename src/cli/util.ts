import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { Command, CommanderError } from 'commander';
import { errBadConfig, errBadOption, errFile, errUsage, isKilnError, type KilnError } from '../diag/errors.js';
import { parsePolicy, PolicyError, type Policy, type SizePreset } from '../gen/policy.js';
import { TARGETS, targetByName } from '../c/target.js';

/** Prints a user error as one line plus a hint, and exits with status 2 (no stack trace). */
export function reportAndExit(e: unknown): never {
  if (isKilnError(e)) {
    const k = e as KilnError;
    process.stderr.write(`kiln: error[${k.code}]: ${k.message}\n`);
    if (k.hint) process.stderr.write(`kiln: hint: ${k.hint}\n`);
    process.exit(2);
  }
  // Anything else is a Kiln bug: show everything, loudly.
  process.stderr.write(
    `kiln: internal error (please report): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  process.exit(70);
}

/** Reads a YAML or JSON file into a plain value. */
export function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw errFile(path, (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message);
  }
  try {
    if (extname(path).toLowerCase() === '.json') return JSON.parse(text);
    // The YAML parser loads here, not with every command (0.1 s of each start-up's CPU).
    return (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);
  } catch (e) {
    throw errBadConfig(
      path,
      `not valid ${extname(path).toLowerCase() === '.json' ? 'JSON' : 'YAML'}: ${(e as Error).message.split('\n')[0]}`,
    );
  }
}

/** Loads and validates a generation policy (file optional), applying a size preset. */
export function loadPolicy(file: string | undefined, size: string | undefined): Policy {
  const preset = parseSize(size);
  const raw = file ? readConfigFile(file) : {};
  try {
    return parsePolicy(raw, preset);
  } catch (e) {
    if (e instanceof PolicyError) throw errBadConfig(file ?? 'policy', e.message);
    throw e;
  }
}

/** Validates `--size`. */
export function parseSize(size: string | undefined): SizePreset {
  if (size === undefined) return 'medium';
  if (size === 'small' || size === 'medium' || size === 'large') return size;
  throw errBadOption('--size', size, 'small, medium or large');
}

/** Parses a non-negative integer option. */
export function parseCount(option: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value)))
    throw errBadOption(option, value, `an integer from ${min} to ${Number.MAX_SAFE_INTEGER}`);
  return Number(value);
}

/** The largest seed: seeds are stored as SQLite's signed 64-bit integers. */
export const MAX_SEED = (1n << 63n) - 1n;

/** Parses a seed: an integer from 0 to {@link MAX_SEED}. */
export function parseSeed(option: string, value: string | undefined, fallback: bigint): bigint {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || BigInt(value) > MAX_SEED)
    throw errBadOption(option, value, `an integer from 0 to ${MAX_SEED} (2^63 - 1)`);
  return BigInt(value);
}

/** Parses a duration like `90`, `90s`, `10m`, `2h` into milliseconds. */
export function parseDuration(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m) throw errBadOption(option, value, 'a duration such as 90s, 10m or 2h');
  const n = Number(m[1]);
  const unit = m[2] ?? 's';
  return n * (unit === 'ms' ? 1 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 3_600_000);
}

/**
 * Kiln's coded form of a command line Commander refused (unknown command or option, missing or
 * extra argument); undefined for help and version exits, which are not errors.
 */
export function usageError(e: CommanderError, program: Command, argv: readonly string[]): KilnError | undefined {
  // Commander's text: "error: unknown option '--foo'" plus, sometimes, "\n(Did you mean --force?)".
  const [first = '', ...rest] = e.message.replace(/^error: /, '').split('\n');
  const suggestion = rest
    .join(' ')
    .replace(/^\((.*)\)$/, '$1')
    .replace(/^Did/, 'did')
    .trim();
  const sub = program.commands.find((c) => argv.includes(c.name()));
  const help = sub ? `run 'kiln ${sub.name()} --help' for its options` : "run 'kiln help' for the list of commands";
  const hint = suggestion ? `${suggestion}; ${help}` : help;
  switch (e.code) {
    case 'commander.unknownCommand':
      return errUsage(
        'KILN_UNKNOWN_COMMAND',
        first,
        suggestion
          ? `${suggestion}; run 'kiln help' for the list of commands`
          : "run 'kiln help' for the list of commands",
      );
    case 'commander.unknownOption':
      return errUsage('KILN_UNKNOWN_OPTION', sub ? `${first} for 'kiln ${sub.name()}'` : first, hint);
    case 'commander.missingArgument':
    case 'commander.optionMissingArgument':
    case 'commander.missingMandatoryOptionValue':
    case 'commander.excessArguments':
    case 'commander.invalidArgument':
    case 'commander.conflictingOption':
      return errUsage('KILN_BAD_ARGUMENTS', sub ? `kiln ${sub.name()}: ${first}` : first, hint);
    default:
      return e.exitCode === 0 || e.code.startsWith('commander.help') || e.code === 'commander.version'
        ? undefined
        : errUsage('KILN_BAD_ARGUMENTS', first, hint);
  }
}

/** The policy with `--target` applied: an unknown name is a user error naming the models. */
export function withTarget(policy: Policy, name: string | undefined): Policy {
  if (name === undefined) return policy;
  const model = targetByName(name);
  if (!model) throw errBadOption('--target', name, `one of ${TARGETS.map((t) => t.name).join(', ')}`);
  return { ...policy, target: model.name };
}
