/** C printing of Kiln programs. */
export { emitC } from './c.js';
export type { EmitOptions } from './c.js';
