// Benchmark smoke runs, part 3 of 3 (see support/smoke.ts).
import { smokeTests } from './support/smoke.js';

smokeTests(2, 3);
