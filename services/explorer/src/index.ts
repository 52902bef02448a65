export { ExplorerConfigSchema, type ExplorerConfig } from './config.ts';
export { startExplorer, type RunningExplorer } from './explorer.ts';
