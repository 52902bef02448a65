export * from './ids.ts';
export * from './amount.ts';
export * from './node.ts';
