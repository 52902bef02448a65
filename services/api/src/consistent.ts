import { setTimeout as delay } from 'node:timers/promises';
import { toErrorResponse, unavailable } from './errors.ts';
import type { Head } from './head.ts';

/**
 * One height per answer. The projector makes a batch visible whole with respect to the head
 * (`HeadDoc` in @mtc/read-models): the read models are exactly the state at `head.height` while the
 * head, read before and after a reader's reads, is the same and not being written. So an answer is
 * built optimistically against the head it started with, then validated by a head read that started
 * after its last read (a seqlock's reader side): unchanged, the answer is the state at that height;
 * moved, it is built again at the new head. While a batch is being written (stores whose writes are
 * not atomic) a reader waits for it, polling the head. 4xx answers are validated the same way: "no
 * such address" is as much a statement about one height as a balance is.
 *
 * The answer is never older than the head the request first saw, and per process heights only grow
 * (the shared head reader keeps the newest head it read).
 */
export interface HeadSource {
  /** The head as requests share it (one store read per API_HEAD_CACHE_MS). */
  current(): Promise<Head>;
  /** A head read that starts now: what validates reads finished before this call. */
  fresh(): Promise<Head>;
}

/** Thrown inside a build whose reads may straddle a batch; the request is built again at `head`. */
export class HeadMoved extends Error {
  readonly head: Head;
  constructor(head: Head) {
    super(`the indexed head moved to ${head.height} during the request`);
    this.head = head;
  }
}

/**
 * Thrown by a build that read a part kept outside the read models (the today-so-far counters) and
 * found it not at the head: it is built again, once the head or that part has moved.
 */
export class NotAtHead extends Error {}

/** A read that comes back null when its parts disagree (a ranked list read during a batch's writes). */
export function whole<T>(value: T | null, what: string): T {
  if (value === null) throw new NotAtHead(`${what} was read while a batch was written over it`);
  return value;
}

const sameHead = (a: Head, b: Head): boolean => a.height === b.height && !a.writing && !b.writing;

/** How often a request waiting on a batch being written looks at the head again. */
const WRITING_POLL_MS = 5;

export interface ConsistentReads {
  /**
   * Runs `build` from the head `first` until its answer (or its 4xx error) is valid at one head,
   * within `deadline` (a `performance.now()` time); `onHead` is told each head tried (for the
   * response's X-Indexed-Height). `build` ends with `validate(head)` after its last read: it may
   * hand its answer to others (a cache), who must get only validated answers.
   */
  atOneHeight<T>(
    first: Head,
    build: (head: Head) => Promise<T>,
    options: { deadline: number; onHead?: (h: Head) => void },
  ): Promise<T>;
  /** Throws HeadMoved unless the head is still `head`: call after a build's last read. */
  validate(head: Head): Promise<void>;
}

export function createConsistentReads(heads: HeadSource): ConsistentReads {
  const validate = async (head: Head): Promise<void> => {
    const now = await heads.fresh();
    if (!sameHead(head, now)) throw new HeadMoved(now);
  };

  /**
   * One poll of the head for every request waiting on a batch being written, however many wait:
   * the store sees one read per WRITING_POLL_MS.
   */
  let polling: Promise<Head> | undefined;
  const settledHead = (): Promise<Head> =>
    (polling ??= (async () => {
      try {
        for (;;) {
          await delay(WRITING_POLL_MS);
          const h = await heads.fresh();
          if (!h.writing) return h;
        }
      } finally {
        polling = undefined;
      }
    })());

  /** The head once no batch is being written over it (or `head` as it is, at the deadline). */
  const settled = async (head: Head, deadline: number): Promise<Head> => {
    if (!head.writing) return head;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Head>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, deadline - performance.now()), head);
    });
    try {
      return await Promise.race([settledHead(), late]);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    validate,
    async atOneHeight(first, build, { deadline, onHead }) {
      let head = await settled(first, deadline);
      for (;;) {
        onHead?.(head);
        let moved: HeadMoved;
        try {
          return await build(head);
        } catch (error) {
          if (error instanceof HeadMoved) moved = error;
          else if (error instanceof NotAtHead) {
            await delay(WRITING_POLL_MS);
            moved = new HeadMoved(await heads.fresh());
          }
          // A server fault says nothing about the data; a client error ("no such …") does, and is checked.
          else if (toErrorResponse(error).status >= 500) throw error;
          else {
            const now = await heads.fresh();
            if (sameHead(head, now)) throw error;
            moved = new HeadMoved(now);
          }
        }
        if (performance.now() >= deadline)
          throw unavailable('the index moved on during every attempt within the time budget; retry', moved);
        head = await settled(moved.head, deadline);
      }
    },
  };
}
