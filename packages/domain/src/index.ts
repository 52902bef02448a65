export * from './ids.ts';
export * from './amount.ts';
export * from './node.ts';
export * from './position.ts';
export * from './events.ts';
export * from './wallet-change.ts';
export * from './decode.ts';
export * from './job-types.ts';
