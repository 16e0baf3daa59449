/*
 * Checks reads of one value (a flag's `enabled`) against the writes made to it, as a
 * linearizable register: a read may return the value in force when it was sent, or the value
 * of any write that overlapped it. Comparing each answer with "the value expected now" when the
 * answer arrives is wrong: a read in flight while a write is acknowledged may legitimately
 * return either value, and the order in which the client handles the two responses is
 * arbitrary (a busy machine makes it more likely to differ from the server's).
 */

export interface TimedWrite<T> {
  readonly value: T;
  readonly sentAt: number;
  /** When its response arrived. */
  readonly respondedAt: number;
  /** Acknowledged (2xx). An unacknowledged write may or may not have taken effect. */
  readonly acknowledged: boolean;
}

export interface TimedRead<T> {
  readonly value: T;
  readonly sentAt: number;
  readonly respondedAt: number;
}

export class RegisterHistory<T> {
  private readonly writes: TimedWrite<T>[];

  constructor(initial: T) {
    this.writes = [
      { value: initial, sentAt: -Infinity, respondedAt: -Infinity, acknowledged: true },
    ];
  }

  /** Records a write; writes are made one after the other (each awaited). */
  wrote(write: TimedWrite<T>): void {
    this.writes.push(write);
  }

  /** The values a read sent and answered at these times may return. */
  legalValues(read: Pick<TimedRead<T>, 'sentAt' | 'respondedAt'>): Set<T> {
    let base = 0;
    for (let i = 0; i < this.writes.length; i++) {
      const w = this.writes[i] as TimedWrite<T>;
      if (w.acknowledged && w.respondedAt < read.sentAt) base = i;
    }
    const legal = new Set<T>([(this.writes[base] as TimedWrite<T>).value]);
    for (const w of this.writes.slice(base + 1)) {
      if (w.sentAt < read.respondedAt) legal.add(w.value);
    }
    return legal;
  }

  /** The reads whose value no ordering of the writes explains. */
  violations(reads: readonly TimedRead<T>[]): TimedRead<T>[] {
    return reads.filter((r) => !this.legalValues(r).has(r.value));
  }
}
