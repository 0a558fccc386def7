// `--for`: a policy lowered to what the compilers named accept (kiln gen, kiln stats).
import { errBadOption } from '../diag/errors.js';
import type { Policy } from '../gen/policy.js';
import { compilerCapabilities, policyFor } from '../harness/capabilities.js';
import { resolveCompilers } from '../harness/compilers.js';

/** `--for`'s help: kiln gen and kiln stats. */
export const FOR_HELP =
  'draw only what all these compilers accept (comma-separated names or paths, probed once): no `_BitInt` for ' +
  'gcc before 14, no vectors for tcc and pcc, no `__builtin_shuffle` for clang';

/** The policy lowered to what every compiler `--for` names accepts (probed; the answers are cached). */
export async function forCompilers(policy: Policy, names: string | undefined): Promise<Policy> {
  if (names === undefined) return policy;
  const specs = names.split(',').filter(Boolean);
  if (specs.length === 0) throw errBadOption('--for', names, 'one or more compiler names or paths, comma-separated');
  const caps = [];
  for (const c of await resolveCompilers(specs)) caps.push(await compilerCapabilities(c));
  return policyFor(policy, caps, 'every');
}
