import { describe, expect, it } from 'vitest';
import { compileAndRun } from '../support/cc.js';

describe('test support', () => {
  it('compiles and runs C with gcc', async () => {
    const r = await compileAndRun('#include <stdio.h>\nint main(void){printf("%d\\n", 6*7);return 0;}');
    expect(r.stdout).toBe('42\n');
  });
});
