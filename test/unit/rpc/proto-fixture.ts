import * as fs from 'fs';
import * as path from 'path';
import * as protobuf from 'protobufjs';
import { PROTO_DIR } from '../../../src/adapters/grpc/proto-definitions';

const WELL_KNOWN = [
  'google/protobuf/timestamp.proto',
  'google/protobuf/struct.proto',
  'google/protobuf/empty.proto',
];

/** A resolved protobufjs root from proto source text, with the well-known types it imports. */
export function rootOf(source: string): protobuf.Root {
  const root = new protobuf.Root();
  for (const file of WELL_KNOWN) {
    const json = protobuf.common.get(file);
    if (json?.nested) root.addJSON(json.nested);
  }
  protobuf.parse(source, root, { keepCase: false });
  root.resolveAll();
  return root;
}

/** The text of one of Vexil's .proto files. */
export const protoSource = (file: string): string =>
  fs.readFileSync(path.join(PROTO_DIR, file), 'utf8');
