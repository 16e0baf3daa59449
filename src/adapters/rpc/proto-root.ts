import * as fs from 'fs';
import * as path from 'path';
import * as protobuf from 'protobufjs';
import { PROTO_DIR, PROTO_FILES } from '../grpc/proto-definitions';

/*
 * The .proto files read once more, through protobufjs's reflection: the same files the gRPC
 * server loads, so that request decoding and response encoding on both transports follow the
 * messages as declared (field names, order, types, enums) instead of tables written by hand.
 */

let cached: protobuf.Root | undefined;

/** Every Vexil proto, resolved; parsed once per process. */
export function protoRoot(): protobuf.Root {
  if (cached === undefined) {
    const root = new protobuf.Root();
    // Our files sit in PROTO_DIR; google/protobuf/* resolve to protobufjs's bundled copies.
    root.resolvePath = (_origin, target) => {
      const local = path.join(PROTO_DIR, target);
      return fs.existsSync(local) ? local : target;
    };
    // keepCase false: fields carry their lowerCamelCase JSON names, as proto-loader gives them.
    root.loadSync([...PROTO_FILES], { keepCase: false });
    root.resolveAll();
    cached = root;
  }
  return cached;
}

/** A message type by its fully-qualified name (`flipt.Flag`). */
export const messageType = (name: string): protobuf.Type => protoRoot().lookupType(name);

/** The methods of a service, by name. */
export function serviceMethods(service: string): ReadonlyMap<string, protobuf.Method> {
  const svc = protoRoot().lookupService(service);
  return new Map(svc.methodsArray.map((m) => [m.name, m]));
}

/** `.flipt.Flag` -> `flipt.Flag`. */
export const typeName = (t: protobuf.ReflectionObject): string => t.fullName.replace(/^\./, '');
