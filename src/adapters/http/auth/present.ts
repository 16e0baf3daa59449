import type { AuthMethodInfo } from '../../../domain/auth';
import type { Authentication } from '../../../domain/model';
import { formatTimestamp, type JsonOut } from '../presenters';

/** protojson writes map entries ordered by key. */
function sortedStringMap(map: { readonly [key: string]: string }): { [key: string]: string } {
  const out: { [key: string]: string } = {};
  for (const key of Object.keys(map).sort()) out[key] = map[key] as string;
  return out;
}

/** flipt.auth.Authentication; `expiresAt` is a message field, absent when the token never expires. */
export function presentAuthentication(a: Authentication): JsonOut {
  const out: JsonOut = { id: a.id, method: a.method };
  if (a.expiresAt !== undefined) out['expiresAt'] = formatTimestamp(a.expiresAt);
  out['createdAt'] = formatTimestamp(a.createdAt);
  out['updatedAt'] = formatTimestamp(a.updatedAt);
  out['metadata'] = sortedStringMap(a.metadata);
  return out;
}

export function presentMethodInfo(m: AuthMethodInfo): JsonOut {
  const out: JsonOut = {
    method: m.method,
    enabled: m.enabled,
    sessionCompatible: m.sessionCompatible,
  };
  if (m.metadata !== undefined) out['metadata'] = m.metadata as JsonOut;
  return out;
}
