/*
 * The baseline of the HTTP benchmark: plain node:http that lets the request body stream in,
 * does not parse it, and answers a fixed JSON document of the same size as Vexil's answer
 * (BENCH_ANSWER_BYTES) once it has all arrived: the least a server can do per request.
 *   node dist/bench/http/raw-server.js   (prints {"message":"listening","port":N})
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const answerBytes = Number(process.env['BENCH_ANSWER_BYTES'] ?? '200');
const bare = JSON.stringify({ enabled: true, pad: '' }).length;
const answer = JSON.stringify({ enabled: true, pad: 'x'.repeat(Math.max(0, answerBytes - bare)) });
const length = Buffer.byteLength(answer);

const server = createServer((req, res) => {
  req.on('data', () => undefined);
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': length });
    res.end(answer);
  });
});

server.keepAliveTimeout = 65_000;
server.listen(Number(process.env['BENCH_PORT'] ?? '0'), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(JSON.stringify({ message: 'listening', port }) + '\n');
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
