/** C printing of Kiln programs. */
export { emitC, printConst, printExpr, safeUses } from './c.js';
export type { EmitOptions } from './c.js';
export { declare, safeName, typeSuffix } from './names.js';
export { safeDefinition } from './safe-math.js';
export type { SafeUse } from './safe-math.js';
export { emitFiles, MAIN_SOURCE } from './files.js';
export type { EmittedFile } from './files.js';
