import { defineRoute, linksTo } from '../../route.ts';
import { latestBlocks, toBlockSummary } from '../blocks/blocks.ts';
import { latestTxs, toTxSummaries } from '../txs/txs.ts';
import { ChainOverview } from './schemas.ts';

export const CHAIN_LATEST = 10;

export const chainRoute = defineRoute({
  path: '/api/chain',
  operationId: 'getChain',
  tag: 'chain',
  summary: 'Heights and the newest blocks and transactions',
  description: 'Never fails because the node is down: mainnetBlock then falls back to the last known height.',
  response: ChainOverview,
  errors: [],
  links: {
    ...linksTo(['getBlock', 'getRawBlock'], { id: '$response.body#/blocks/0/height' }),
    ...linksTo(['getTransaction', 'getRawTransaction', 'getTxTemplates'], { id: '$response.body#/transactions/0/id' }),
  },
  // Blocks up to the head's height and transactions below its count: written once, never changed.
  heightGated: true,
  cache: 'head',
  async handle({ head }, app) {
    const { height, txCount } = await head();
    const [mainnet, blocks, txs] = await Promise.all([
      app.mainnet.read(),
      latestBlocks(app.models, height, CHAIN_LATEST),
      latestTxs(app.models, height, txCount, CHAIN_LATEST),
    ]);
    return {
      localBlock: height,
      mainnetBlock: mainnet.ok ? mainnet.height : (mainnet.lastKnown ?? height),
      blocks: blocks.map(toBlockSummary),
      transactions: await toTxSummaries(app.models, txs),
    };
  },
});
