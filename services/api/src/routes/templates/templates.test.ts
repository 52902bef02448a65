import { describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { buildChain, hash, startTestApi, testConfig } from '../../testing/harness.ts';
import { TxTemplates } from './schemas.ts';

const fixture = buildChain(5);
const TX = fixture.txs[0]!.id;

describe('GET /api/tx/{id}/templates', () => {
  it('lists the configured templates with viewer urls, pro ones ending with the apikey placeholder', async () => {
    const api = await startTestApi({ fixture });
    try {
      const { status, body } = await api.get<TxTemplates>(`/api/tx/${TX}/templates`);
      expect(status).toBe(200);
      expect(TxTemplates.parse(body)).toEqual(body);
      expect(body).toEqual({
        tx: TX,
        templates: [
          { id: 'classic', tier: 'free', url: `http://localhost:8080/viewer/classic/${TX}` },
          { id: 'receipt', tier: 'free', url: `http://localhost:8080/viewer/receipt/${TX}` },
          { id: 'certificate', tier: 'pro', url: `http://localhost:8080/viewer/certificate/${TX}?apikey=<API_KEY>` },
        ],
      });
    } finally {
      await api.close();
    }
  });

  it('builds the urls from VIEWER_BASE_URL and TX_TEMPLATES', async () => {
    const config = testConfig({ VIEWER_BASE_URL: 'https://view.example.org/v/', TX_TEMPLATES: 'gold:pro' });
    const api = await startTestApi({ fixture, config });
    try {
      const { body } = await api.get<TxTemplates>(`/api/tx/${TX.toUpperCase()}/templates`);
      expect(body).toEqual({
        tx: TX,
        templates: [{ id: 'gold', tier: 'pro', url: `https://view.example.org/v/gold/${TX}?apikey=<API_KEY>` }],
      });
    } finally {
      await api.close();
    }
  });

  it('answers 404 for a transaction that is not indexed and 400 for a malformed id', async () => {
    const api = await startTestApi({ fixture });
    try {
      const missing = await api.get(`/api/tx/${hash('missing')}/templates`);
      expect(missing.status).toBe(404);
      expect(ErrorBody.parse(missing.body).error.code).toBe('not_found');
      const bad = await api.get('/api/tx/123/templates');
      expect(bad.status).toBe(400);
    } finally {
      await api.close();
    }
  });
});
