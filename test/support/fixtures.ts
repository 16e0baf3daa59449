import type { DomainError, ErrorKind } from '../../src/domain/errors';
import type {
  CreateFlagRequest,
  CreateSegmentRequest,
  ListRequest,
  Timestamp,
} from '../../src/domain/model';
import type { ChangeNotifier, Clock, IdGenerator } from '../../src/ports';

/**
 * A clock that moves one millisecond per reading, so every write has its own timestamp.
 * `'first-reading'` starts it at the real time of its first reading.
 */
export class TickingClock implements Clock {
  private ms: number | undefined;
  constructor(start: number | 'first-reading' = Date.UTC(2024, 4, 1, 10, 0, 0)) {
    this.ms = start === 'first-reading' ? undefined : start;
  }
  now(): Timestamp {
    this.ms = (this.ms ?? Date.now()) + 1;
    return new Date(this.ms).toISOString().replace('Z', '000Z');
  }
}

/** Deterministic, well-formed v4 UUIDs. */
export class SequentialIds implements IdGenerator {
  private n = 0;
  uuid(): string {
    this.n += 1;
    return `00000000-0000-4000-8000-${this.n.toString(16).padStart(12, '0')}`;
  }
}

/** Records every change notice. */
export class RecordingNotifier implements ChangeNotifier {
  readonly changed: string[] = [];
  namespaceChanged(namespaceKey: string): void {
    this.changed.push(namespaceKey);
  }
}

let counter = 0;
/** A key no other test (or earlier run against the same database) has used. */
export function uniqueKey(prefix: string): string {
  counter += 1;
  const random = Math.random().toString(36).slice(2, 8);
  return `${prefix}-${Date.now().toString(36)}-${counter}-${random}`;
}

export const ALL: ListRequest = { limit: 0, offset: 0, pageToken: '', reference: '' };

export const page = (limit: number, pageToken = '', offset = 0): ListRequest => ({
  limit,
  offset,
  pageToken,
  reference: '',
});

export const flagRequest = (
  namespaceKey: string,
  key: string,
  extra: Partial<CreateFlagRequest> = {},
): CreateFlagRequest => ({
  namespaceKey,
  key,
  name: `${key} name`,
  description: `${key} description`,
  enabled: true,
  type: 'VARIANT_FLAG_TYPE',
  ...extra,
});

export const segmentRequest = (
  namespaceKey: string,
  key: string,
  extra: Partial<CreateSegmentRequest> = {},
): CreateSegmentRequest => ({
  namespaceKey,
  key,
  name: `${key} name`,
  description: '',
  matchType: 'ALL_MATCH_TYPE',
  ...extra,
});

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Awaits a rejection and checks its error kind and exact message. */
export async function expectError(
  promise: Promise<unknown>,
  kind: ErrorKind,
  message: string,
): Promise<void> {
  const outcome = await promise.then(
    () => ({ resolved: true }),
    (err: unknown) => ({
      kind: (err as DomainError).kind,
      message: (err as Error).message,
    }),
  );
  expect(outcome).toEqual({ kind, message });
}

/** Decodes a page token for assertions (standard base64 of JSON). */
export const decodeToken = (token: string): unknown =>
  JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
