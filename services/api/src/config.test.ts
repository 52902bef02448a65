import { describe, expect, it } from 'vitest';
import { ConfigError } from '@mtc/runtime';
import { ApiConfigSchema, parseApiConfig } from './config.ts';

describe('ApiConfigSchema', () => {
  it('gives the documented defaults when nothing is set', () => {
    expect(ApiConfigSchema.parse({})).toEqual({
      VIEWER_BASE_URL: 'http://localhost:8080/viewer',
      TX_TEMPLATES: [
        { id: 'classic', tier: 'free' },
        { id: 'receipt', tier: 'free' },
        { id: 'certificate', tier: 'pro' },
      ],
      STATS_UTC_OFFSET_MINUTES: 0,
      READY_MAX_LAG: 5,
      MAINNET_HEIGHT_CACHE_MS: 2000,
      API_HEAD_CACHE_MS: 100,
      API_RESPONSE_CACHE_MB: 64,
      API_REQUEST_TIMEOUT_MS: 1500,
      API_MAX_HEADER_BYTES: 16_384,
      API_MAX_URL_BYTES: 4096,
      API_HEADERS_TIMEOUT_MS: 10_000,
      API_DRAIN_TIMEOUT_MS: 10_000,
      ACCESS_LOG_SAMPLE: 0.01,
      ACCESS_LOG_SLOW_MS: 1000,
      TOKEN_LOCKS_MAX: 1000,
      NFT_IMAGE_ALLOW_HOSTS: [],
      NFT_IMAGE_TIMEOUT_MS: 5000,
      NFT_IMAGE_MAX_BYTES: 5 * 2 ** 20,
      NFT_IMAGE_MAX_IN_FLIGHT: 32,
      NFT_IMAGE_MAX_PER_HOST: 4,
      NFT_IMAGE_SLOT_WAIT_MS: 250,
      NFT_IMAGE_FAILURE_TTL_MS: 30_000,
      // Rate limiting: off unless asked for; the costlier routes weighted.
      RATE_LIMIT_ENABLED: false,
      RATE_LIMIT_POINTS: 600,
      RATE_LIMIT_WINDOW_S: 60,
      RATE_LIMIT_COSTS: [
        { path: '/api/search', cost: 5 },
        { path: '/api/token/{id}/locks', cost: 10 },
        { path: '/api/address/{id}/txs', cost: 3 },
        { path: '/api/v1/nft/{id}/image', cost: 5 },
        { path: '/api/v1/token/{id}/image', cost: 5 },
        { path: '/api/export/txs', cost: 60 },
        { path: '/api/export/address/{address}/activity', cost: 60 },
        { path: '/api/export/token/{id}/transfers', cost: 60 },
        { path: '/api/export/token/{id}/holders', cost: 60 },
        { path: '/api/export/nft/{id}/holders', cost: 60 },
        { path: '/api/export/stats/daily-txs', cost: 60 },
      ],
      RATE_LIMIT_STORE_TIMEOUT_MS: 100,
      API_PROXY_HOPS: 0,
      // The live stream: a heartbeat every 15 s, 8 connections a client, 1,000 in all, 1 MiB buffers.
      STREAM_HEARTBEAT_MS: 15_000,
      STREAM_RETRY_MS: 2000,
      STREAM_MAX_CONNECTIONS: 1000,
      STREAM_MAX_PER_CLIENT: 8,
      STREAM_BUFFER_BYTES: 2 ** 20,
      STREAM_SLOW_CLIENT_MS: 30_000,
      STREAM_HEAD_POLL_MS: 250,
      STREAM_TAIL_BLOCKS: 512,
      STREAM_TAIL_IDLE_MS: 60_000,
      EXPORT_MAX_ROWS: 1_000_000,
      EXPORT_PAGE_ROWS: 1000,
      EXPORT_PAGE_TIMEOUT_MS: 10_000,
    });
  });

  it('parses the variables when they are set', () => {
    const config = parseApiConfig({
      VIEWER_BASE_URL: 'https://viewer.example/v/',
      TX_TEMPLATES: ' a:pro , b:free ',
      STATS_UTC_OFFSET_MINUTES: '540',
      READY_MAX_LAG: '0',
      MAINNET_HEIGHT_CACHE_MS: '100',
      API_HEAD_CACHE_MS: '0',
      API_RESPONSE_CACHE_MB: '8',
      TOKEN_LOCKS_MAX: '5',
      UNRELATED: 'x',
    });
    expect(config).toEqual({
      VIEWER_BASE_URL: 'https://viewer.example/v',
      TX_TEMPLATES: [
        { id: 'a', tier: 'pro' },
        { id: 'b', tier: 'free' },
      ],
      STATS_UTC_OFFSET_MINUTES: 540,
      READY_MAX_LAG: 0,
      MAINNET_HEIGHT_CACHE_MS: 100,
      API_HEAD_CACHE_MS: 0,
      API_RESPONSE_CACHE_MB: 8,
      API_REQUEST_TIMEOUT_MS: 1500,
      API_MAX_HEADER_BYTES: 16_384,
      API_MAX_URL_BYTES: 4096,
      API_HEADERS_TIMEOUT_MS: 10_000,
      API_DRAIN_TIMEOUT_MS: 10_000,
      ACCESS_LOG_SAMPLE: 0.01,
      ACCESS_LOG_SLOW_MS: 1000,
      TOKEN_LOCKS_MAX: 5,
      NFT_IMAGE_ALLOW_HOSTS: [],
      NFT_IMAGE_TIMEOUT_MS: 5000,
      NFT_IMAGE_MAX_BYTES: 5 * 2 ** 20,
      NFT_IMAGE_MAX_IN_FLIGHT: 32,
      NFT_IMAGE_MAX_PER_HOST: 4,
      NFT_IMAGE_SLOT_WAIT_MS: 250,
      NFT_IMAGE_FAILURE_TTL_MS: 30_000,
      // Rate limiting: off unless asked for; the costlier routes weighted.
      RATE_LIMIT_ENABLED: false,
      RATE_LIMIT_POINTS: 600,
      RATE_LIMIT_WINDOW_S: 60,
      RATE_LIMIT_COSTS: [
        { path: '/api/search', cost: 5 },
        { path: '/api/token/{id}/locks', cost: 10 },
        { path: '/api/address/{id}/txs', cost: 3 },
        { path: '/api/v1/nft/{id}/image', cost: 5 },
        { path: '/api/v1/token/{id}/image', cost: 5 },
        { path: '/api/export/txs', cost: 60 },
        { path: '/api/export/address/{address}/activity', cost: 60 },
        { path: '/api/export/token/{id}/transfers', cost: 60 },
        { path: '/api/export/token/{id}/holders', cost: 60 },
        { path: '/api/export/nft/{id}/holders', cost: 60 },
        { path: '/api/export/stats/daily-txs', cost: 60 },
      ],
      RATE_LIMIT_STORE_TIMEOUT_MS: 100,
      API_PROXY_HOPS: 0,
      // The live stream: a heartbeat every 15 s, 8 connections a client, 1,000 in all, 1 MiB buffers.
      STREAM_HEARTBEAT_MS: 15_000,
      STREAM_RETRY_MS: 2000,
      STREAM_MAX_CONNECTIONS: 1000,
      STREAM_MAX_PER_CLIENT: 8,
      STREAM_BUFFER_BYTES: 2 ** 20,
      STREAM_SLOW_CLIENT_MS: 30_000,
      STREAM_HEAD_POLL_MS: 250,
      STREAM_TAIL_BLOCKS: 512,
      STREAM_TAIL_IDLE_MS: 60_000,
      EXPORT_MAX_ROWS: 1_000_000,
      EXPORT_PAGE_ROWS: 1000,
      EXPORT_PAGE_TIMEOUT_MS: 10_000,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('treats an empty variable as unset', () => {
    expect(parseApiConfig({ READY_MAX_LAG: '' }).READY_MAX_LAG).toBe(5);
  });

  it('lists every bad variable when some are invalid', () => {
    const parse = () =>
      parseApiConfig({ TX_TEMPLATES: 'a:gold', STATS_UTC_OFFSET_MINUTES: '2000', VIEWER_BASE_URL: 'ftp://x' });
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(/TX_TEMPLATES[\s\S]*VIEWER_BASE_URL|VIEWER_BASE_URL[\s\S]*TX_TEMPLATES/);
    expect(parse).toThrow(/STATS_UTC_OFFSET_MINUTES/);
  });

  it('pins the clock only when CLOCK_NOW_UNIX is set', () => {
    expect(parseApiConfig({}).CLOCK_NOW_UNIX).toBeUndefined();
    expect(parseApiConfig({ CLOCK_NOW_UNIX: '' }).CLOCK_NOW_UNIX).toBeUndefined();
    expect(parseApiConfig({ CLOCK_NOW_UNIX: '1700000000' }).CLOCK_NOW_UNIX).toBe(1_700_000_000);
    expect(() => parseApiConfig({ CLOCK_NOW_UNIX: 'soon' })).toThrow(/CLOCK_NOW_UNIX/);
  });

  it('refuses a TOKEN_LOCKS_MAX below 1', () => {
    expect(() => parseApiConfig({ TOKEN_LOCKS_MAX: '0' })).toThrow(/TOKEN_LOCKS_MAX/);
  });

  it('rejects a template listed twice', () => {
    expect(() => parseApiConfig({ TX_TEMPLATES: 'a:free,a:pro' })).toThrow(/listed twice/);
  });
});
