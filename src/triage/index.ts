// Triage: fingerprints that group findings by cause (see triage.ts).
export { triageFinding, TRIAGE_FILE, type TriageMethod, type TriageOptions, type TriageResult } from './triage.js';
export {
  bugPredicate,
  findingConfiguration,
  judgeProbe,
  TriageAborted,
  type BugPredicate,
  type Probe,
  type PredicateContext,
  type Verdict,
} from './predicate.js';
export {
  readFinding,
  isFindingDir,
  optimisationLevel,
  FINDING_MANIFEST,
  type StoredFinding,
  type SourceFile,
} from './finding.js';
export { clangOptBisect, parseBisectLine, parseBisectOutput, optBisectOptions, type BisectLine } from './clang.js';
export {
  gccFlagSearch,
  enabledOptimizers,
  parseEnabledOptimizers,
  parseDumpPasses,
  searchablePasses,
  negateFlag,
  passFamily,
  DEFAULT_GCC_LIMITS,
  type GccPass,
  type GccSearchLimits,
} from './gcc.js';
export { minimalSubset, type MinimalSubset } from './minimise.js';
export type { SearchOutcome } from './search.js';
