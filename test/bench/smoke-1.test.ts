// Benchmark smoke runs, part 1 of 3 (see support/smoke.ts).
import { smokeTests } from './support/smoke.js';

smokeTests(0, 3);
