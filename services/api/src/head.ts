import { HEAD_ID, type Models } from '@mtc/read-models';

/**
 * The indexed head as one request sees it: every list in a response (and its X-Indexed-Height
 * header) describes the read models at `height` (see consistent.ts). Zeros before the first block
 * is indexed. `writing`: a batch is being written over it, so the read models are not at `height`.
 */
export interface Head {
  height: number;
  txCount: number;
  writing: boolean;
}

export async function readHead(models: Pick<Models, 'head'>): Promise<Head> {
  const doc = await models.head.get(HEAD_ID);
  return doc
    ? { height: doc.height, txCount: doc.txCount, writing: doc.writing !== undefined }
    : { height: 0, txCount: 0, writing: false };
}
