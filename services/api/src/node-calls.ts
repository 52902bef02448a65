import { unavailable } from './errors.ts';

/**
 * Calls to the chain node on behalf of a request. Whatever makes the node fail (unreachable, timing
 * out, answering garbage) is a 503 for the client: the node is a dependency it cannot fix. The cause
 * stays attached for the log.
 */
export async function fromNode<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw unavailable(`the chain node could not serve ${what}`, error);
  }
}
