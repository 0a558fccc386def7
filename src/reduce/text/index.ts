// The text reducer: tree-sitter-based passes over any C file, driven by a C-Reduce-compatible
// interestingness test. See ARCHITECTURE.md, "Reduction".
export { applyEdits, type Edit, type Range } from './edits.js';
export { InterestingnessTest, type Verdict } from './interesting.js';
export {
  reduceText,
  textSize,
  type PassStats,
  type ReduceEvent,
  type TextReduceOptions,
  type TextReduceResult,
} from './manager.js';
export { chunkedRemovalPass, editListPass, type Pass, type PassContext, type TransformResult } from './pass.js';
export { CParser } from './parser.js';
export { DEFAULT_PASS_GROUPS, PASSES, instantiate, type PassGroups, type PassName } from './passes/index.js';
export { defaultOutput, reduceFile, type ReduceFileOptions, type ReduceFileResult } from './reduce-file.js';
export { crashScript, iceSignature, probeCrash, probeWrongCodeGuards, wrongCodeScript } from './scripts.js';
