import { MessageEncoders, type Shapes } from '../../../src/adapters/rpc/message-encoder';
import { rootOf } from './proto-fixture';

const root = rootOf(`
  syntax = "proto3";
  package t;
  import "google/protobuf/timestamp.proto";
  import "google/protobuf/struct.proto";
  enum Color { RED = 0; GREEN = 1; }
  message Item { string name = 1; }
  message Sample {
    string s = 1;
    bool b = 2;
    int32 i = 3;
    int64 big = 4;
    float f = 5;
    double d = 6;
    Color color = 7;
    repeated string tags = 8;
    repeated Item items = 9;
    map<string, string> labels = 10;
    google.protobuf.Timestamp at = 11;
    google.protobuf.Struct meta = 12;
    optional string note = 13;
    Item item = 14;
    oneof choice { Item first = 15; Item second = 16; }
  }
  message Holder { bytes raw = 1; }
`);

const lookup = (name: string) => root.lookupType(name);
const json = (shapes: Shapes = {}) => new MessageEncoders('json', shapes, lookup);
const grpc = new MessageEncoders('grpc', {}, lookup);

const TS = '2024-05-01T10:00:00.120000Z';

describe('the JSON encoding of a message', () => {
  it('writes zero values in declaration order and leaves unset messages, oneofs and optionals out', () => {
    const out = json().encode('t.Sample', {});
    expect(JSON.stringify(out)).toBe(
      '{"s":"","b":false,"i":0,"big":"0","f":0,"d":0,"color":"RED","tags":[],"items":[],"labels":{}}',
    );
  });

  it('converts every field by its declared type', () => {
    const out = json().encode('t.Sample', {
      meta: { z: 1, a: { y: [1, { d: 2, c: 3 }], x: null } },
      at: TS,
      labels: { b: '2', a: '1' },
      d: NaN,
      f: Math.fround(0.1),
      big: 12345678901,
      color: 'GREEN',
      items: [{ name: 'one', extra: 'not in the message' }],
      note: '',
      s: 'x',
    });
    expect(JSON.stringify(out)).toBe(
      '{"s":"x","b":false,"i":0,"big":"12345678901","f":0.1,"d":"NaN","color":"GREEN","tags":[],' +
        '"items":[{"name":"one"}],"labels":{"a":"1","b":"2"},"at":"2024-05-01T10:00:00.120Z",' +
        '"meta":{"a":{"x":null,"y":[1,{"c":3,"d":2}]},"z":1},"note":""}',
    );
  });

  it('writes only the first set member of a oneof', () => {
    const out = json().encode('t.Sample', { second: { name: '2' }, first: { name: '1' } });
    expect(out).toMatchObject({ first: { name: '1' } });
    expect(out).not.toHaveProperty('second');
    expect(json().encode('t.Sample', { second: { name: '2' } })).toHaveProperty('second');
  });

  it('shapes a value registered for its type before writing it, at any depth', () => {
    const shapes: Shapes = { 't.Item': (v: { label: string }) => ({ name: v.label }) };
    const out = json(shapes).encode('t.Sample', {
      item: { label: 'shaped' },
      items: [{ label: 'x' }],
    });
    expect(out).toMatchObject({ items: [{ name: 'x' }], item: { name: 'shaped' } });
  });

  it('refuses a field it has no encoding for when the type is first used', () => {
    expect(() => json().encoder('t.Holder')).toThrow('t.Holder.raw: bytes has no JSON encoding');
  });
});

describe('the gRPC encoding of a message', () => {
  it('turns Timestamps and Structs into their messages and passes everything else through', () => {
    const out = grpc.encode('t.Sample', {
      s: 'x',
      at: TS,
      meta: { a: [true, null] },
      items: [{ name: 'one' }],
      big: 5,
    });
    expect(out).toEqual({
      s: 'x',
      big: 5,
      items: [{ name: 'one' }],
      at: { seconds: 1714557600, nanos: 120000000 },
      meta: {
        fields: {
          a: { listValue: { values: [{ boolValue: true }, { nullValue: 'NULL_VALUE' }] } },
        },
      },
    });
  });
});
