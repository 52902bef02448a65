import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { headMemory, localHeadCell, sharedHeadCell } from './head-cell.ts';

const head = (height: number, writing = false) => ({ height, txCount: height * 3, writing });

describe.each([
  ['local', () => localHeadCell()],
  ['shared', () => sharedHeadCell(headMemory())],
])('a %s head cell', (_, make) => {
  it('holds nothing until a head is offered, then the head and when it was read', () => {
    const cell = make();
    expect(cell.get()).toBeUndefined();
    cell.offer(head(0), 0);
    expect(cell.get()).toEqual({ head: head(0), at: 0 });
    cell.offer(head(5, true), 1_000);
    expect(cell.get()).toEqual({ head: head(5, true), at: 1_000 });
  });

  it('never goes down: a lower head is not kept, the same height read later is', () => {
    const cell = make();
    cell.offer(head(9), 1_000);
    cell.offer(head(8), 2_000);
    expect(cell.get()).toEqual({ head: head(9), at: 1_000 });
    cell.offer(head(9, true), 3_000);
    expect(cell.get()).toEqual({ head: head(9, true), at: 3_000 });
  });
});

describe('a shared head cell', () => {
  it('is one head for every thread over the same memory', async () => {
    const memory = headMemory();
    const here = sharedHeadCell(memory);
    here.offer(head(4), 100);
    const module = fileURLToPath(new URL('./head-cell.ts', import.meta.url));
    // The other thread reads what this one kept, offers a higher head and a lower one.
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
      import(${JSON.stringify(module)}).then(({ sharedHeadCell }) => {
        const cell = sharedHeadCell(workerData);
        const seen = cell.get();
        cell.offer({ height: 12, txCount: 36, writing: false }, 200);
        cell.offer({ height: 10, txCount: 30, writing: false }, 300);
        parentPort.postMessage(seen);
      });`,
      { eval: true, workerData: memory },
    );
    const [seen] = (await once(worker, 'message')) as [unknown];
    expect(seen).toEqual({ head: head(4), at: 100 });
    expect(here.get()).toEqual({ head: head(12), at: 200 });
    expect(sharedHeadCell(memory).get()).toEqual({ head: head(12), at: 200 });
  });
});
