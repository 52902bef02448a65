import { describe, expect, it } from 'vitest';
import { cursorPage } from './cursor.ts';
import { NewestFirstPaging, PagingQuery, totalPages } from './paging.ts';

describe('cursorPage by page number', () => {
  const rows = (total: number, page: number) => {
    const p = cursorPage('k', { first: 1, last: total }, { page, limit: 20 });
    return [p.from, p.to];
  };
  it('gives the newest rows on page 1, a short slice on the last page, none past the end', () => {
    expect(rows(95, 1)).toEqual([76, 95]);
    expect(rows(95, 5)).toEqual([1, 15]);
    const past = cursorPage('k', { first: 1, last: 95 }, { page: 6, limit: 20 });
    expect(past.to < past.from && past.next === null && past.prev === null).toBe(true);
    const empty = cursorPage('k', { first: 1, last: 0 }, { page: 1, limit: 20 });
    expect(empty.to < empty.from).toBe(true);
  });
});

describe('totalPages', () => {
  it('rounds up and is 0 for an empty list', () => {
    expect(totalPages(95, 20)).toBe(5);
    expect(totalPages(100, 20)).toBe(5);
    expect(totalPages(0, 20)).toBe(0);
  });
});

describe('PagingQuery', () => {
  it('applies the defaults when nothing is given', () => {
    expect(PagingQuery.parse({})).toEqual({ page: 1, limit: 20 });
  });

  it('rejects what is not a whole number in range', () => {
    for (const bad of [{ page: '0' }, { page: '-1' }, { page: '1.5' }, { page: '1e3' }, { page: ' 2' }, { page: '' }]) {
      expect(PagingQuery.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(PagingQuery.safeParse({ limit: '51' }).success).toBe(false);
    expect(PagingQuery.safeParse({ limit: '0' }).success).toBe(false);
    expect(PagingQuery.safeParse({ page: '1000001' }).success).toBe(false);
    expect(PagingQuery.parse({ page: '1000000', limit: '50' })).toEqual({ page: 1_000_000, limit: 50 });
  });
});

describe('NewestFirstPaging', () => {
  it('allows limit up to 100, with the same defaults', () => {
    expect(NewestFirstPaging.parse({})).toEqual({ page: 1, limit: 20 });
    expect(NewestFirstPaging.parse({ limit: '100' })).toEqual({ page: 1, limit: 100 });
    expect(NewestFirstPaging.safeParse({ limit: '101' }).success).toBe(false);
    expect(NewestFirstPaging.safeParse({ limit: '0' }).success).toBe(false);
  });
});
