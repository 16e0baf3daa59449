/*
 * A stand-in OTLP/HTTP receiver for the observability benchmark: accepts every POST to
 * /v1/traces (JSON or protobuf), answers 200 `{}` at once, and counts exports, bytes and spans
 * (span ids in JSON bodies). GET /stats returns the counts.
 *   node dist/bench/http-observability/otlp-sink.js   (prints {"message":"listening","port":N})
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let exportCount = 0;
let bytes = 0;
let spans = 0;

const SPAN_ID = /"spanId"/g;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ exports: exportCount, bytes, spans }));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    exportCount++;
    bytes += body.length;
    if (String(req.headers['content-type']).includes('json')) {
      spans += body.toString('utf8').match(SPAN_ID)?.length ?? 0;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{}');
  });
});

server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(JSON.stringify({ message: 'listening', port }) + '\n');
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
