import { TYPE_ENTITY_ID, type CompiledConstraint } from './compiled-constraint';
import { compileStringConstraint, matchString } from './string-constraint';

/** ENTITY_ID constraints ignore their property and compare the request's entity id. */
export const compileEntityIdConstraint = (
  property: string,
  operator: string,
  value: string,
): CompiledConstraint => compileStringConstraint(property, operator, value, TYPE_ENTITY_ID);

export const matchEntityId = (c: CompiledConstraint, entityId: string): boolean =>
  matchString(c, entityId);
