/** Kiln's program IR: types, nodes, builders and visitors. */
export * from './types.js';
export * from './nodes.js';
export * from './build.js';
export * from './visit.js';
