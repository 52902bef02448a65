import { ConfigError, createLogger, parseConfig } from '@mtc/runtime';
import { ExplorerConfigSchema } from './config.ts';
import { startExplorer } from './explorer.ts';

/** `npm start`: the whole explorer in one process, configured from the environment. */
async function main(): Promise<void> {
  let config;
  try {
    config = parseConfig(ExplorerConfigSchema, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
  const logger = createLogger({ level: config.LOG_LEVEL });
  const running = await startExplorer(config, logger);
  running.shutdown.installSignalHandlers();
  logger.info({ api: `${running.apiUrl}/api/chain`, node: running.nodeUrl }, 'explorer ready');
  console.log(`Explorer API: ${running.apiUrl}/api/chain`);
  running.fatal.catch(async (error: unknown) => {
    logger.fatal({ err: error }, 'pipeline failed');
    await running.shutdown.run('fatal');
    process.exit(1);
  });
}

await main();
