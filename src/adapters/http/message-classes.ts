import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

/** The server options (node:http createServer) that set the classes of requests and responses. */
export interface MessageClasses {
  readonly IncomingMessage: typeof IncomingMessage;
  readonly ServerResponse: typeof ServerResponse;
}

/**
 * node:http's request and response classes, made so that their instances are born with the
 * prototypes the Express app gives the requests it serves. An object whose prototype changes
 * takes a new hidden class: without this, the node:http code shared by the evaluation fast
 * path and the app (header writing, stream and socket callbacks) saw two shapes of each
 * object, and management requests threw that code, optimized for the fast path's shape, back
 * to the interpreter, a latency spike for the evaluations running alongside. Here the app's
 * prototypes become the classes' own (subclasses, so that V8 sizes instances for the
 * properties node:http's constructors add), and Express's prototype change is a no-op. The
 * fast path uses none of Express's methods.
 */
export function messageClasses(app: Express): MessageClasses {
  class Request extends IncomingMessage {}
  class Response extends ServerResponse {}
  adopt(Request.prototype, app.request, app);
  adopt(Response.prototype, app.response, app);
  app.request = Request.prototype as typeof app.request;
  app.response = Response.prototype as typeof app.response;
  return { IncomingMessage: Request, ServerResponse: Response as typeof ServerResponse };
}

/** `proto` takes the place of the app's `own` prototype: same parent, same `app` property. */
function adopt(proto: object, own: object, app: Express): void {
  Object.setPrototypeOf(proto, Object.getPrototypeOf(own) as object);
  Object.defineProperty(proto, 'app', {
    configurable: true,
    enumerable: true,
    writable: true,
    value: app,
  });
}
