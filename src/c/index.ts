/** Target model and exact C arithmetic semantics: the foundation every other stage builds on. */
export * from './target.js';
export * from './types.js';
export * from './convert.js';
export * from './ops.js';
export * from './eval.js';
export * from './ub.js';
