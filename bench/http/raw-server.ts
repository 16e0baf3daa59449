/*
 * The baseline of the HTTP benchmark: plain node:http that reads the request body,
 * JSON.parses it and answers with a JSON document of the same size as Vexil's answer
 * (BENCH_ANSWER_BYTES), built from the parsed request so the work is not skipped.
 *   node dist/bench/http/raw-server.js   (prints {"message":"listening","port":N})
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const answerBytes = Number(process.env['BENCH_ANSWER_BYTES'] ?? '200');

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const answer = {
      enabled: true,
      flagKey: String(body['flagKey'] ?? ''),
      entityId: String(body['entityId'] ?? ''),
      pad: '',
    };
    const bare = JSON.stringify(answer).length;
    answer.pad = 'x'.repeat(Math.max(0, answerBytes - bare));
    const text = JSON.stringify(answer);
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
    });
    res.end(text);
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
