import { randomUUID } from 'node:crypto';
import type { IdGenerator } from '../../ports';

export class RandomIdGenerator implements IdGenerator {
  uuid(): string {
    return randomUUID();
  }
}
