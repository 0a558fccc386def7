import type { Command } from 'commander';
import type { z } from 'zod';
import { PolicySchema } from '../gen/policy.js';
import { loadPolicy, reportAndExit } from './util.js';

/** Registers `kiln policy`: prints a policy (the defaults, or a file merged over them) as commented YAML. */
export function registerPolicy(program: Command): void {
  program
    .command('policy')
    .description('print every generation policy field with its value and meaning, as a YAML file you can edit')
    .option('--policy <file>', 'show this policy file merged over the defaults')
    .option('--size <preset>', 'apply a size preset: small, medium or large')
    .action((opts: { policy?: string; size?: string }) => {
      try {
        process.stdout.write(policyYaml(loadPolicy(opts.policy, opts.size)));
      } catch (e) {
        reportAndExit(e);
      }
    });
}

/** A policy as YAML with each field's description as a comment (descriptions come from the schema). */
export function policyYaml(policy: Record<string, unknown>): string {
  const lines = [
    '# Kiln generation policy. Any subset of these fields may be given in a policy file;',
    '# fields left out keep the values shown here.',
  ];
  const shape = (PolicySchema as unknown as z.ZodObject<z.ZodRawShape>).shape;
  for (const [key, schema] of Object.entries(shape)) {
    const value = policy[key];
    const desc = describe(schema);
    if (value !== null && typeof value === 'object') {
      lines.push('', `${key}:${desc ? `  # ${desc}` : ''}`);
      const inner = innerShape(schema);
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const d = inner ? describe(inner[k]) : undefined;
        lines.push(`  ${k}: ${JSON.stringify(v)}${d ? `  # ${d}` : ''}`);
      }
    } else {
      lines.push(`${key}: ${JSON.stringify(value)}${desc ? `  # ${desc}` : ''}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function describe(s: unknown): string | undefined {
  let x = s as { description?: string; unwrap?: () => unknown; _zod?: { def?: { innerType?: unknown } } } | undefined;
  for (let i = 0; i < 4 && x; i++) {
    if (x.description) return x.description;
    x = (x._zod?.def?.innerType ?? undefined) as typeof x;
  }
  return undefined;
}

function innerShape(s: unknown): Record<string, unknown> | undefined {
  let x = s as { shape?: Record<string, unknown>; _zod?: { def?: { innerType?: unknown } } } | undefined;
  for (let i = 0; i < 4 && x; i++) {
    if (x.shape) return x.shape;
    x = (x._zod?.def?.innerType ?? undefined) as typeof x;
  }
  return undefined;
}
