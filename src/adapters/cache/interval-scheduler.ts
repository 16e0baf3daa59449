import type { RefreshScheduler } from '../../ports';

/** Background work on a timer that never keeps the process alive on its own. */
export class IntervalScheduler implements RefreshScheduler {
  every(intervalMs: number, task: () => void): () => void {
    const timer = setInterval(task, Math.max(1, Math.round(intervalMs)));
    timer.unref();
    return () => clearInterval(timer);
  }
}
