import { constants, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type * as grpc from '@grpc/grpc-js';

/** Time for a peer to read the first GOAWAY before the final one (a round trip, with room). */
export const GOAWAY_GRACE_MS = 200;

/** The part of grpc-js's server this relies on: its HTTP/2 listeners and their sessions. */
interface Http2Listeners {
  readonly http2Servers?: Map<Http2Server, { readonly sessions?: Set<ServerHttp2Session> }>;
}

/**
 * The first half of an HTTP/2 graceful shutdown (RFC 9113, section 6.8): stop listening, then
 * send every connection a GOAWAY naming the largest stream id, so that a stream its peer sent
 * before reading it is still served. grpc-js's own shutdown sends only the final GOAWAY, which
 * names the last stream already seen: a request crossing it on the wire is refused, and a
 * proxy that opened a connection in that instant (nginx) answers 502 instead of retrying.
 * Returns false when grpc-js no longer has the shape this reads; the shutdown then goes on
 * with the final GOAWAY alone.
 */
export function announceGoaway(server: grpc.Server): boolean {
  const listeners = (server as unknown as Http2Listeners).http2Servers;
  if (!(listeners instanceof Map)) return false;
  for (const [listener, { sessions }] of listeners) {
    if (listener.listening) listener.close();
    for (const session of sessions ?? []) {
      if (session.closed || session.destroyed) continue;
      try {
        session.goaway(constants.NGHTTP2_NO_ERROR, 2 ** 31 - 1);
      } catch {
        // The session closed meanwhile: nothing to announce.
      }
    }
  }
  return true;
}
