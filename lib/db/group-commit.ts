import { isDatabaseUnavailable, isDatabaseUnreachable } from "./outage";

/**
 * Group commit for a hot statement (the credit reservation, the AI slot): the first call waits one
 * turn of the event loop (setImmediate: the requests already read from their sockets reach the same
 * point), and the calls that arrive while a statement is being written wait for the next; each group
 * goes out as one statement (`writeMany`), up to `maxBatch` calls that `sameBatch` says may share it
 * (the rest wait for the next). A statement's fixed cost is most of a small statement's time, above
 * all on the embedded database, whose statements run on this thread. A group the database refused as
 * a whole (one call's own conflict) is written again call by call (`writeOne`), so each caller gets its
 * own outcome or error. A group whose connection failed is not: it may have been committed before its
 * answer was lost, so every caller hears the outage and treats its call as one that may have landed.
 */

export interface GroupCommitOptions<A, R> {
  maxBatch: number;
  /** Whether `a` may go out in the statement of the group that `first` opened. */
  sameBatch: (a: A, first: A) => boolean;
  writeOne: (args: A) => Promise<R>;
  /** One statement for the group; the results in the order of `batch` (undefined: no row for that call). */
  writeMany: (batch: A[]) => Promise<Array<R | undefined>>;
}

interface Waiting<A, R> {
  args: A;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export function groupCommit<A, R>(options: GroupCommitOptions<A, R>): (args: A) => Promise<R> {
  const waiting: Waiting<A, R>[] = [];
  let writing = false;

  const writeAlone = (w: Waiting<A, R>) => options.writeOne(w.args).then(w.resolve, w.reject);

  async function writeBatch(batch: Waiting<A, R>[]): Promise<void> {
    let results: Array<R | undefined>;
    try {
      results = await options.writeMany(batch.map((w) => w.args));
    } catch (error) {
      if (isDatabaseUnreachable(error) || isDatabaseUnavailable(error)) {
        for (const w of batch) w.reject(error);
        return;
      }
      // The database refused the group: nothing of it was written; each call again, alone.
      for (const w of batch) await writeAlone(w);
      return;
    }
    batch.forEach((w, i) => {
      const result = results[i];
      if (result === undefined) w.reject(new Error("a grouped statement returned no row for an item"));
      else w.resolve(result);
    });
  }

  async function writeWaiting(): Promise<void> {
    try {
      while (waiting.length > 0) {
        const first = waiting[0].args;
        const batch: Waiting<A, R>[] = [];
        for (let i = 0; i < waiting.length && batch.length < options.maxBatch;) {
          if (options.sameBatch(waiting[i].args, first)) batch.push(...waiting.splice(i, 1));
          else i++;
        }
        await (batch.length === 1 ? writeAlone(batch[0]) : writeBatch(batch));
      }
    } finally {
      writing = false;
    }
  }

  return (args: A) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ args, resolve, reject });
      if (!writing) {
        writing = true;
        setImmediate(() => void writeWaiting());
      }
    });
}

/** The positions of `items` sorted by `key`: the order a grouped statement takes its row locks in. */
export function sortedOrder<T>(items: T[], key: (item: T) => string): number[] {
  return items.map((_, i) => i).sort((a, b) => (key(items[a]) < key(items[b]) ? -1 : key(items[a]) > key(items[b]) ? 1 : 0));
}
