import type { Devnet } from '../chain/devnet.ts';

/**
 * The node's read routes (ND `src/router/block.js`), matched like Express 4 does: case-insensitive,
 * optional trailing slash, on the pathname only, GET and HEAD.
 */
export type Route =
  | { readonly name: 'height' }
  | { readonly name: 'block'; readonly param: string }
  | { readonly name: 'transaction'; readonly param: string }
  | { readonly name: 'debug-state' }
  | { readonly name: 'debug-faults' };

/** The routes answered from the chain alone (the fault counts live in the server). */
export type ChainRoute = Exclude<Route, { readonly name: 'debug-faults' }>;

/** What to send: a node answer (ND default_response with a string), Express' 404 page, or debug JSON. */
export type Reply =
  | { readonly kind: 'node'; readonly status: number; readonly body: string }
  | { readonly kind: 'express-404'; readonly method: string; readonly pathname: string }
  | { readonly kind: 'debug'; readonly body: string };

/** Each route's path; the devnet-only debug routes, which no real node has, match case-sensitively. */
const PATHS: readonly (readonly [Route['name'], RegExp])[] = [
  ['height', /^\/block\/?$/i],
  ['block', /^\/block\/([^/]+?)\/?$/i],
  ['transaction', /^\/transaction\/([^/]+?)\/?$/i],
  ['debug-state', /^\/debug\/state\/?$/],
  ['debug-faults', /^\/debug\/faults\/?$/],
];

export function matchRoute(method: string, pathname: string): Route | null {
  if (method !== 'GET' && method !== 'HEAD') return null;
  for (const [name, path] of PATHS) {
    const match = path.exec(pathname);
    if (match) return (match[1] === undefined ? { name } : { name, param: match[1] }) as Route;
  }
  return null;
}

export function handle(devnet: Devnet, route: ChainRoute): Reply {
  switch (route.name) {
    case 'height':
      return node(200, String(devnet.height()));
    case 'block':
    case 'transaction': {
      const param = decodeParam(route.param);
      if (typeof param !== 'string') return param;
      return route.name === 'block' ? getBlock(devnet, param) : getTransaction(devnet, param.trim());
    }
    case 'debug-state':
      return { kind: 'debug', body: JSON.stringify(devnet.worldState()) };
  }
}

/** ND get_block: exactly 64 characters is a hash; otherwise a number, padded like NumberPadding. */
function getBlock(devnet: Devnet, param: string): Reply {
  const notFound = node(404, `Block ${param} not found`);
  if (param.length === 64) {
    const block = devnet.blockJson(param);
    return block === undefined ? notFound : node(200, block);
  }
  if (Number.isNaN(Number(param))) return node(404, 'Block is must be numeric or 64 bytes id');
  const padded = `0000000000000000${param}`.slice(-16);
  if (!/^[0-9]{16}$/.test(padded)) return notFound;
  const block = devnet.blockJson(Number(padded));
  return block === undefined ? notFound : node(200, block);
}

/**
 * ND get_transaction: the cached copy, else the bridge's error with 412. The message is what
 * fabric-client reports for an unknown id through qscc GetBlockByTxID (inferred from BR's wording
 * of the same lookup for blocks).
 */
function getTransaction(devnet: Devnet, txId: string): Reply {
  const entries = devnet.transactionJson(txId);
  if (entries !== undefined) return node(200, entries);
  return node(
    412,
    `chaincode error (status: 500, message: Failed to get block for txID ${txId}, error Entry not found in index)`,
  );
}

/** Express' decode_param; its URIError reaches ND's error funnel, which answers 412. */
function decodeParam(raw: string): string | Reply {
  try {
    return decodeURIComponent(raw);
  } catch {
    return node(412, `Failed to decode param '${raw}'`);
  }
}

function node(status: number, body: string): Reply {
  return { kind: 'node', status, body };
}
