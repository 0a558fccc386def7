/** Kiln's library API: everything the `kiln` command does can be done from code. */
export * as c from './c/index.js';
export * as ir from './ir/index.js';
export { Rng } from './random/rng.js';
export { CSMITH_POLICY, parsePolicy, PolicySchema, SIZE_PRESETS } from './gen/policy.js';
export type { Policy, PolicyInput, SizePreset } from './gen/policy.js';
export { generateRaw } from './gen/program.js';
export { CompiledProgram, interpret, checksumLine } from './interp/index.js';
export type { InterpOptions, Profile, RunOutcome, UBReport } from './interp/index.js';
export { generateProgram } from './repair/generate.js';
export type { Generated, Discarded } from './repair/generate.js';
export { emitC } from './emit/index.js';
export type { EmitOptions } from './emit/index.js';
export { KilnError } from './diag/errors.js';
export { writeReport, REPORT_FILE } from './report/html/index.js';
export type { WrittenReport, WriteReportOptions } from './report/html/index.js';
