import type { ServerResponse } from 'node:http';

/** Resolves when the response can take more (after `write` returned false), or is gone. */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
