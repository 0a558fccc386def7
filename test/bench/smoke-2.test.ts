// Benchmark smoke runs, part 2 of 3 (see support/smoke.ts).
import { smokeTests } from './support/smoke.js';

smokeTests(1, 3);
