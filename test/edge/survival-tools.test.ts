// `kiln fuzz --sanitizers` says which survival checks a missing tool leaves undone, rather than
// skipping them without a word.
import { describe, expect, it } from 'vitest';
import { missingSurvivalTools } from '../../src/edge/sancampaign.js';
import { findOnPath } from '../../src/harness/compilers.js';

describe('survival-check tools', () => {
  it('names each missing tool and what stays unchecked', () => {
    expect(missingSurvivalTools(() => true)).toEqual([]);
    const none = missingSurvivalTools(() => false);
    expect(none).toHaveLength(2);
    expect(none[0]).toMatch(/^valgrind is not installed: an MSan miss above -O0 .* unconfirmed/);
    expect(none[1]).toMatch(/^objdump \(binutils\) is not installed: .*line/);
    expect(missingSurvivalTools((t) => t === 'valgrind')).toEqual([none[1]]);
  });

  it('finds tools on PATH as the campaign does', () => {
    expect(findOnPath('sh')).toMatch(/\/sh$/);
    expect(findOnPath('kiln-no-such-tool')).toBeUndefined();
    expect(findOnPath('sh', { PATH: '/nonexistent' })).toBeUndefined();
  });
});
