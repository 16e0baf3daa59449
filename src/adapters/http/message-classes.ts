import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';

/** The server options (node:http createServer) that set the classes of requests and responses. */
export interface MessageClasses {
  readonly IncomingMessage: typeof IncomingMessage;
  readonly ServerResponse: typeof ServerResponse;
}

/**
 * node:http's request and response classes, with instances born with the Express app's own
 * prototypes. Express gives each request it serves those prototypes; an object whose
 * prototype changes takes a new hidden class, so without this the node:http code shared by
 * the evaluation fast path and the app (header writing, stream and socket callbacks) saw two
 * shapes of each object, and every management request threw that code, optimized for the
 * fast path's shape, back to the interpreter: a latency spike for every evaluation running
 * alongside. Born with the app's prototypes, both sides share one shape, and Express's
 * prototype change becomes a no-op. The fast path uses none of Express's methods.
 */
export function messageClasses(app: Express): MessageClasses {
  // node:http's classes are plain constructor functions; called on `this`, the instance keeps
  // the hidden class `new` gave it. (Reflect.construct with a new target gives each instance
  // a hidden class of its own: every property access goes megamorphic.)
  const initRequest = IncomingMessage as unknown as (this: unknown, socket: Socket) => void;
  const initResponse = ServerResponse as unknown as (this: unknown, ...args: unknown[]) => void;
  const Request = function (this: unknown, socket: Socket): void {
    initRequest.call(this, socket);
  };
  Request.prototype = app.request;
  // The response also gets options from node:http: passed on as given.
  const Response = function (this: unknown, ...args: unknown[]): void {
    initResponse.apply(this, args);
  };
  Response.prototype = app.response;
  return {
    IncomingMessage: Request as unknown as typeof IncomingMessage,
    ServerResponse: Response as unknown as typeof ServerResponse,
  };
}
