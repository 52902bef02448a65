import { ConfigError, createLogger, dataDirProblem, parseConfig, type Logger } from '@mtc/runtime';
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
  const dataDir = config.DATA_DIR;
  const running = await startExplorer(config, logger).catch((error: unknown) => stop(logger, error, dataDir));
  running.shutdown.installSignalHandlers();
  logger.info({ api: `${running.apiUrl}/api/chain`, node: running.nodeUrl, ops: running.opsUrl }, 'explorer ready');
  console.log(`Explorer API: ${running.apiUrl}/api/chain`);
  if (running.opsUrl) console.log(`Metrics: ${running.opsUrl}/metrics`);
  running.fatal.catch(async (error: unknown) => {
    await running.shutdown.run('fatal');
    stop(logger, error, dataDir);
  });
}

/** Exits 1, saying in one sentence what to do when the data directory failed us. */
function stop(logger: Logger, error: unknown, dataDir: string): never {
  const problem = dataDirProblem(error, dataDir);
  if (problem) {
    logger.fatal({ code: (error as { code?: unknown }).code }, problem);
    console.error(`explorer stopped: ${problem}`);
  } else logger.fatal({ err: error }, 'pipeline failed');
  process.exit(1);
}

await main();
