import { describe, expect, it } from 'vitest';
import { parseApiConfig } from './config.ts';
import { imageFetcherOptions } from './nft-images.ts';

describe('NFT_IMAGE_* settings', () => {
  it('gives the documented defaults', () => {
    expect(imageFetcherOptions(parseApiConfig({}))).toEqual({
      allowHosts: [],
      timeoutMs: 5000,
      maxBytes: 5 * 2 ** 20,
      maxInFlight: 32,
      maxPerHost: 4,
      slotWaitMs: 250,
      failureTtlMs: 30_000,
    });
  });

  it('normalises allow-listed hosts as the URL parser does', () => {
    const config = parseApiConfig({ NFT_IMAGE_ALLOW_HOSTS: ' 127.0.0.1:8545, Images.Test ,[::1]:80,0x7f.1:9' });
    expect(config.NFT_IMAGE_ALLOW_HOSTS).toEqual([
      { hostname: '127.0.0.1', port: 8545 },
      { hostname: 'images.test', port: null },
      { hostname: '[::1]', port: 80 },
      { hostname: '127.0.0.1', port: 9 },
    ]);
  });

  it.each(['::1', 'a:b:c', 'host:0', 'host:70000', 'http://host', 'user@host', 'a b'])('refuses "%s"', (entry) => {
    expect(() => parseApiConfig({ NFT_IMAGE_ALLOW_HOSTS: entry })).toThrow(/NFT_IMAGE_ALLOW_HOSTS/);
  });
});
