/** The reference interpreter: exact execution of Kiln IR with UB detection and profiles. */
export { CompiledProgram, interpret, checksumLine } from './interpret.js';
export type { InterpOptions, Profile, RunOutcome, UBReport } from './interpret.js';
