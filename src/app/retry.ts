export interface RetryOptions {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** Stops retrying (and rejects) once aborted. */
  readonly signal?: AbortSignal;
  /** An error that waiting cannot cure: rejects at once instead of retrying. */
  readonly isPermanent?: (error: unknown) => boolean;
  readonly onFailure: (error: unknown, attempt: number, nextDelayMs: number) => void;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Runs `attempt` until it succeeds, waiting with exponential backoff and jitter between tries. */
export async function retryWithBackoff<T>(
  attempt: () => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  let delay = options.initialDelayMs;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (options.signal?.aborted || options.isPermanent?.(err) === true) throw err;
      // Whole milliseconds: a single timer with a fractional delay changes the shape V8 gives
      // every timer of the process (node:http's socket timers included, one per request)
      // from then on, de-optimizing the request path while the database is away.
      const wait = Math.round(Math.min(options.maxDelayMs, delay) * (0.8 + Math.random() * 0.4));
      options.onFailure(err, n, wait);
      await sleep(wait, options.signal);
      delay = Math.min(options.maxDelayMs, delay * 2);
    }
  }
}
