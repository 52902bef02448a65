import type { TxTemplate } from '../../config.ts';
import { notFound } from '../../errors.ts';
import { TxIdParams } from '../../params.ts';
import { defineRoute } from '../../route.ts';
import { TxTemplates } from './schemas.ts';

/** The placeholder a pro template url ends with; the caller puts their key in its place. */
export const API_KEY_PLACEHOLDER = '<API_KEY>';

export function templateUrl(viewerBaseUrl: string, template: TxTemplate, txId: string): string {
  const url = `${viewerBaseUrl}/${template.id}/${txId}`;
  return template.tier === 'pro' ? `${url}?apikey=${API_KEY_PLACEHOLDER}` : url;
}

export const txTemplatesRoute = defineRoute({
  path: '/api/tx/{id}/templates',
  operationId: 'getTxTemplates',
  tag: 'transactions',
  summary: 'Viewer pages that render an indexed transaction',
  params: TxIdParams,
  response: TxTemplates,
  errors: [400, 404],
  cache: 'config',
  async handle({ params }, app) {
    const tx = await app.models.txs.get(params.id);
    if (!tx) throw notFound(`transaction ${params.id} not found`);
    return {
      tx: tx._id,
      templates: app.config.TX_TEMPLATES.map((t) => ({
        id: t.id,
        tier: t.tier,
        url: templateUrl(app.config.VIEWER_BASE_URL, t, tx._id),
      })),
    };
  },
});
