import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { enumValue } from '../../../src/adapters/grpc/wire-types';
import { decodeJsonMessage, HttpError, type MessageSchema } from '../../../src/adapters/http';

const doc = readFileSync(join(__dirname, '../../../docs/compatibility.md'), 'utf8');
const row = (title: string): string =>
  doc.split('\n').find((line) => line.startsWith(`| ${title} |`)) ?? '';

const messageOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return err instanceof HttpError ? `${err.httpStatus} ${err.message}` : (err as Error).message;
  }
  throw new Error('expected an error');
};

describe('docs/compatibility.md', () => {
  it('quotes the errors the server sends for an unknown enum number, over HTTP and gRPC', () => {
    const text = row('enum values sent as unknown numbers');
    const schema: MessageSchema = {
      type: { enum: 'flipt.FlagType', values: ['VARIANT_FLAG_TYPE', 'BOOLEAN_FLAG_TYPE'] },
    };
    const http = messageOf(() => decodeJsonMessage({ type: 99 }, schema));
    expect(http).toBe('400 unknown value "99" for enum flipt.FlagType');
    expect(text).toContain('status 400');
    expect(text).toContain(`\`${http.slice('400 '.length)}\``);
    const grpc = messageOf(() => enumValue(99, ['VARIANT_FLAG_TYPE'], 'FlagType'));
    expect(text).toContain(`\`${grpc}\``);
  });
});
