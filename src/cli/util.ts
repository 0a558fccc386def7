import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { errBadConfig, errBadOption, errFile, isKilnError, type KilnError } from '../diag/errors.js';
import { parsePolicy, PolicyError, type Policy, type SizePreset } from '../gen/policy.js';

/** Prints a user error as one line plus a hint, and exits with status 2 (no stack trace). */
export function reportAndExit(e: unknown): never {
  if (isKilnError(e)) {
    const k = e as KilnError;
    process.stderr.write(`kiln: error[${k.code}]: ${k.message}\n`);
    if (k.hint) process.stderr.write(`kiln: hint: ${k.hint}\n`);
    process.exit(2);
  }
  // Anything else is a Kiln bug: show everything, loudly.
  process.stderr.write(`kiln: internal error (please report): ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
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
    return extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw errBadConfig(path, `not valid ${extname(path).toLowerCase() === '.json' ? 'JSON' : 'YAML'}: ${(e as Error).message.split('\n')[0]}`);
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
  if (!/^\d+$/.test(value) || Number(value) < min) throw errBadOption(option, value, `an integer ≥ ${min}`);
  return Number(value);
}

/** Parses a seed: a non-negative integer (up to 2^63). */
export function parseSeed(option: string, value: string | undefined, fallback: bigint): bigint {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || BigInt(value) >= 1n << 63n) throw errBadOption(option, value, 'a non-negative integer');
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
