import { enc, request } from './client';
import type {
  Authentication,
  Constraint,
  Distribution,
  ExplainResponse,
  Flag,
  FlagType,
  MatchType,
  MetaInfo,
  Namespace,
  Rollout,
  Rule,
  Segment,
  SegmentOperator,
  SessionInfo,
  Variant,
} from './types';

const ns = (namespace: string) => `/api/v1/namespaces/${enc(namespace)}`;
const flagPath = (namespace: string, flag: string) => `${ns(namespace)}/flags/${enc(flag)}`;
const segmentPath = (namespace: string, segment: string) =>
  `${ns(namespace)}/segments/${enc(segment)}`;

export const session = {
  get: () => request<SessionInfo>('/dashboard/v1/session', { quiet401: true }),
  signIn: (clientToken: string) =>
    request<SessionInfo>('/dashboard/v1/session', {
      method: 'POST',
      body: { clientToken },
      quiet401: true,
    }),
  signOut: () => request<object>('/dashboard/v1/session', { method: 'DELETE', quiet401: true }),
};

export const meta = {
  info: () => request<MetaInfo>('/meta/info'),
};

export interface NamespaceInput {
  key: string;
  name: string;
  description: string;
}

export const namespaces = {
  list: () => request<{ namespaces: Namespace[]; totalCount: number }>('/api/v1/namespaces'),
  get: (key: string) => request<Namespace>(ns(key)),
  create: (input: NamespaceInput) =>
    request<Namespace>('/api/v1/namespaces', { method: 'POST', body: input }),
  update: (input: NamespaceInput) =>
    request<Namespace>(ns(input.key), { method: 'PUT', body: input }),
  remove: (key: string) => request<object>(ns(key), { method: 'DELETE' }),
};

export interface FlagInput {
  key: string;
  name: string;
  description: string;
  enabled: boolean;
  type?: FlagType;
  defaultVariantId?: string;
  metadata?: Record<string, unknown>;
}

export const flags = {
  list: (namespace: string) =>
    request<{ flags: Flag[]; nextPageToken: string; totalCount: number }>(`${ns(namespace)}/flags`),
  get: (namespace: string, key: string) => request<Flag>(flagPath(namespace, key)),
  create: (namespace: string, input: FlagInput) =>
    request<Flag>(`${ns(namespace)}/flags`, { method: 'POST', body: input }),
  /** PUT replaces every field: callers pass the whole flag, changed or not. */
  update: (namespace: string, input: FlagInput) =>
    request<Flag>(flagPath(namespace, input.key), { method: 'PUT', body: input }),
  remove: (namespace: string, key: string) =>
    request<object>(flagPath(namespace, key), { method: 'DELETE' }),
  copy: (namespace: string, key: string, targetNamespaceKey: string, targetKey?: string) =>
    request<Flag>(`${flagPath(namespace, key)}/copy`, {
      method: 'POST',
      body: { targetNamespaceKey, ...(targetKey ? { targetKey } : {}) },
    }),
};

export interface VariantInput {
  key: string;
  name: string;
  description: string;
  attachment: string;
}

export const variants = {
  create: (namespace: string, flag: string, input: VariantInput) =>
    request<Variant>(`${flagPath(namespace, flag)}/variants`, { method: 'POST', body: input }),
  update: (namespace: string, flag: string, id: string, input: VariantInput) =>
    request<Variant>(`${flagPath(namespace, flag)}/variants/${enc(id)}`, {
      method: 'PUT',
      body: input,
    }),
  remove: (namespace: string, flag: string, id: string) =>
    request<object>(`${flagPath(namespace, flag)}/variants/${enc(id)}`, { method: 'DELETE' }),
};

export interface SegmentInput {
  key: string;
  name: string;
  description: string;
  matchType: MatchType;
}

export const segments = {
  list: (namespace: string) =>
    request<{ segments: Segment[]; nextPageToken: string; totalCount: number }>(
      `${ns(namespace)}/segments`,
    ),
  get: (namespace: string, key: string) => request<Segment>(segmentPath(namespace, key)),
  create: (namespace: string, input: SegmentInput) =>
    request<Segment>(`${ns(namespace)}/segments`, { method: 'POST', body: input }),
  update: (namespace: string, input: SegmentInput) =>
    request<Segment>(segmentPath(namespace, input.key), { method: 'PUT', body: input }),
  remove: (namespace: string, key: string) =>
    request<object>(segmentPath(namespace, key), { method: 'DELETE' }),
};

export interface ConstraintInput {
  type: Constraint['type'];
  property: string;
  operator: string;
  value: string;
  description: string;
}

export const constraints = {
  create: (namespace: string, segment: string, input: ConstraintInput) =>
    request<Constraint>(`${segmentPath(namespace, segment)}/constraints`, {
      method: 'POST',
      body: input,
    }),
  update: (namespace: string, segment: string, id: string, input: ConstraintInput) =>
    request<Constraint>(`${segmentPath(namespace, segment)}/constraints/${enc(id)}`, {
      method: 'PUT',
      body: input,
    }),
  remove: (namespace: string, segment: string, id: string) =>
    request<object>(`${segmentPath(namespace, segment)}/constraints/${enc(id)}`, {
      method: 'DELETE',
    }),
};

export interface RuleInput {
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
  rank?: number;
}

export const rules = {
  list: (namespace: string, flag: string) =>
    request<{ rules: Rule[] }>(`${flagPath(namespace, flag)}/rules`),
  create: (namespace: string, flag: string, input: RuleInput) =>
    request<Rule>(`${flagPath(namespace, flag)}/rules`, { method: 'POST', body: input }),
  update: (namespace: string, flag: string, id: string, input: RuleInput) =>
    request<Rule>(`${flagPath(namespace, flag)}/rules/${enc(id)}`, { method: 'PUT', body: input }),
  remove: (namespace: string, flag: string, id: string) =>
    request<object>(`${flagPath(namespace, flag)}/rules/${enc(id)}`, { method: 'DELETE' }),
  order: (namespace: string, flag: string, ruleIds: string[]) =>
    request<object>(`${flagPath(namespace, flag)}/rules/order`, {
      method: 'PUT',
      body: { ruleIds },
    }),
};

export const distributions = {
  create: (namespace: string, flag: string, rule: string, variantId: string, rollout: number) =>
    request<Distribution>(`${flagPath(namespace, flag)}/rules/${enc(rule)}/distributions`, {
      method: 'POST',
      body: { variantId, rollout },
    }),
  update: (
    namespace: string,
    flag: string,
    rule: string,
    id: string,
    variantId: string,
    rollout: number,
  ) =>
    request<Distribution>(
      `${flagPath(namespace, flag)}/rules/${enc(rule)}/distributions/${enc(id)}`,
      { method: 'PUT', body: { variantId, rollout } },
    ),
  remove: (namespace: string, flag: string, rule: string, id: string, variantId: string) =>
    request<object>(`${flagPath(namespace, flag)}/rules/${enc(rule)}/distributions/${enc(id)}`, {
      method: 'DELETE',
      query: { variantId },
    }),
};

export type RolloutInput =
  | {
      rank?: number;
      description: string;
      segment: { segmentKeys: string[]; segmentOperator: SegmentOperator; value: boolean };
    }
  | { rank?: number; description: string; threshold: { percentage: number; value: boolean } };

export const rollouts = {
  list: (namespace: string, flag: string) =>
    request<{ rules: Rollout[] }>(`${flagPath(namespace, flag)}/rollouts`),
  create: (namespace: string, flag: string, input: RolloutInput) =>
    request<Rollout>(`${flagPath(namespace, flag)}/rollouts`, { method: 'POST', body: input }),
  update: (namespace: string, flag: string, id: string, input: RolloutInput) =>
    request<Rollout>(`${flagPath(namespace, flag)}/rollouts/${enc(id)}`, {
      method: 'PUT',
      body: input,
    }),
  remove: (namespace: string, flag: string, id: string) =>
    request<object>(`${flagPath(namespace, flag)}/rollouts/${enc(id)}`, { method: 'DELETE' }),
  order: (namespace: string, flag: string, rolloutIds: string[]) =>
    request<object>(`${flagPath(namespace, flag)}/rollouts/order`, {
      method: 'PUT',
      body: { rolloutIds },
    }),
};

export interface TokenInput {
  name: string;
  description: string;
  namespaceKey?: string;
  expiresAt?: string;
}

export const tokens = {
  list: (pageToken?: string) =>
    request<{ authentications: Authentication[]; nextPageToken: string }>('/auth/v1/tokens', {
      query: { limit: 100, pageToken },
    }),
  create: (input: TokenInput) =>
    request<{ clientToken: string; authentication: Authentication }>('/auth/v1/method/token', {
      method: 'POST',
      body: input,
    }),
  remove: (id: string) => request<object>(`/auth/v1/tokens/${enc(id)}`, { method: 'DELETE' }),
};

export interface EvaluationInput {
  namespaceKey: string;
  flagKey: string;
  entityId: string;
  context: Record<string, string>;
}

export const evaluation = {
  explain: (input: EvaluationInput) =>
    request<ExplainResponse>('/evaluate/v1/explain', { method: 'POST', body: input }),
};
