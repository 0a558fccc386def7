// A generation process: receives seeds, generates, executes and repairs programs, emits C.
// Generation is CPU-bound JavaScript, so a campaign runs one such process per core.
import { modeFor, type ModeChoice } from '../gen/mode.js';
import type { Policy } from '../gen/policy.js';
import { generateProgram } from '../repair/generate.js';
import type { GenReply, GenRequest } from './genpool.js';
import { campaignFiles } from './program.js';
import { EmiBases } from '../mutate/campaign.js';

let policy: Policy | undefined;
let modeChoice: ModeChoice = 'csmith';
let emi = 0;
let bases: EmiBases | undefined;

// The parent decides when to stop: a Ctrl-C in the terminal reaches the whole foreground
// process group, and the campaign must get to finish its bookkeeping first.
process.on('SIGINT', () => undefined);
process.on('disconnect', () => process.exit(0));

process.on('message', (m: GenRequest) => {
  if (m.type === 'init') {
    policy = m.policy;
    modeChoice = m.mode;
    emi = m.emi ?? 0;
    bases = emi > 0 ? new EmiBases(m.policy, m.mode) : undefined;
    return;
  }
  process.send!(generate(m.id, m.seed));
});

function generate(id: number, seed: string): GenReply {
  try {
    if (!policy) throw new Error('generation worker used before init');
    if (bases) {
      const e = bases.program(seed, emi);
      if (!e.ok) return { id, seed, ok: false, reason: e.reason, genMs: e.genMs };
      return { id, seed, ok: true, mode: e.mode, expected: e.expected, files: e.files, genMs: e.genMs };
    }
    const mode = modeFor(seed, modeChoice);
    const r = generateProgram(seed, policy, mode);
    if (!r.ok) return { id, seed, ok: false, reason: r.reason, genMs: r.genMs };
    const files = campaignFiles(r, policy);
    return { id, seed, ok: true, mode, expected: r.expected, files, genMs: r.genMs };
  } catch (e) {
    return { id, seed, ok: false, reason: 'generator error', error: e instanceof Error ? (e.stack ?? e.message) : String(e), genMs: 0 };
  }
}
