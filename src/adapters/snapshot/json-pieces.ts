/*
 * JSON text as a list of Buffers in which an object referenced from several places is
 * written once: every place it appears holds the same Buffer. A client snapshot repeats each
 * segment under every rule naming it, so its text grows with rules times segments while the
 * distinct bytes grow with the namespace; this keeps the memory (and the work) to the latter.
 * The concatenated pieces are exactly JSON.stringify's output.
 */

/** Shared objects shorter than this are written inline: a piece of their own costs more. */
export const MIN_SHARED_BYTES = 1024;
/** Inline text is cut into pieces of about this size. */
const GLUE_BYTES = 64 * 1024;

export interface JsonPieces {
  /** In order; a Buffer appears once per place its object is referenced. */
  readonly pieces: readonly Buffer[];
  /** Length of the whole text, in bytes. */
  readonly byteLength: number;
  /** Bytes of the distinct Buffers: what holding the pieces costs. */
  readonly heldBytes: number;
}

type Container = object;

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/** How many places reference each object or array (objects are walked once). */
function countReferences(root: unknown): Map<Container, number> {
  const counts = new Map<Container, number>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (!isContainer(v)) continue;
    const seen = counts.get(v);
    counts.set(v, (seen ?? 0) + 1);
    if (seen !== undefined) continue;
    if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
    } else {
      for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
    }
  }
  return counts;
}

export function jsonPieces(value: unknown): JsonPieces {
  const counts = countReferences(value);
  const texts = new Map<Container, string>();
  const buffers = new Map<Container, Buffer>();
  const pieces: Buffer[] = [];
  let glue = '';
  let byteLength = 0;
  let heldBytes = 0;

  const flush = (): void => {
    if (glue === '') return;
    const buf = Buffer.from(glue);
    pieces.push(buf);
    byteLength += buf.length;
    heldBytes += buf.length;
    glue = '';
  };

  const write = (v: unknown): void => {
    if (!isContainer(v)) {
      glue += JSON.stringify(v) ?? 'null';
    } else if ((counts.get(v) ?? 0) > 1) {
      let buf = buffers.get(v);
      if (buf === undefined) {
        let text = texts.get(v);
        if (text === undefined) {
          text = JSON.stringify(v);
          texts.set(v, text);
        }
        if (text.length < MIN_SHARED_BYTES / 3 || Buffer.byteLength(text) < MIN_SHARED_BYTES) {
          glue += text;
          return;
        }
        buf = Buffer.from(text);
        texts.delete(v);
        buffers.set(v, buf);
        heldBytes += buf.length;
      }
      flush();
      pieces.push(buf);
      byteLength += buf.length;
    } else if (Array.isArray(v)) {
      glue += '[';
      for (let i = 0; i < v.length; i++) {
        if (i > 0) glue += ',';
        const item: unknown = v[i];
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
          glue += 'null';
        } else {
          write(item);
        }
      }
      glue += ']';
    } else if (typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      glue += JSON.stringify(v);
    } else {
      glue += '{';
      let first = true;
      for (const key of Object.keys(v)) {
        const item = (v as Record<string, unknown>)[key];
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        glue += (first ? '' : ',') + JSON.stringify(key) + ':';
        first = false;
        write(item);
      }
      glue += '}';
    }
    if (glue.length >= GLUE_BYTES) flush();
  };

  write(value);
  flush();
  return { pieces, byteLength, heldBytes };
}
