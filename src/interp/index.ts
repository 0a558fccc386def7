/** The reference interpreter: exact execution of Kiln IR with UB detection and profiles. */
export { CompiledProgram, interpret, checksumLine } from './interpret.js';
export type { InterpOptions, Profile, RunOutcome, UBReport } from './interpret.js';
export { DEFAULT_LIMITS, HASH_PRIME, HASH_SEED, mixHash, VARIED } from './runtime.js';
export type { RunLimits } from './runtime.js';
export { layoutOf, cellCount, fieldOffset } from './memory.js';
export type { Ptr, Cell, Layout } from './memory.js';
