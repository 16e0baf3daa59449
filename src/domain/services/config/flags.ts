import type {
  CreateFlagRequest,
  CreateVariantRequest,
  DeleteFlagRequest,
  DeleteVariantRequest,
  Flag,
  ListFlagsRequest,
  Page,
  UpdateFlagRequest,
  UpdateVariantRequest,
  Variant,
} from '../../model';
import type { NewFlag } from '../../../ports';
import { referenced, unique, type ConfigContext } from './context';
import {
  defaultVariantNotFound,
  flagNotFound,
  flagNotUnique,
  namespaceNotFound,
  variantNotFound,
  variantNotUnique,
} from './messages';

export async function getFlag(c: ConfigContext, namespaceKey: string, key: string): Promise<Flag> {
  const flag = await c.unitOfWork.read((r) => r.flags.getFlag(namespaceKey, key));
  if (flag === undefined) throw flagNotFound(namespaceKey, key);
  return flag;
}

export function listFlags(c: ConfigContext, req: ListFlagsRequest): Promise<Page<Flag>> {
  return c.unitOfWork.read((r) => r.flags.listFlags(req));
}

export function createFlag(c: ConfigContext, req: CreateFlagRequest): Promise<Flag> {
  const { namespaceKey, key } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    if (!scope.namespaceExists) throw namespaceNotFound(namespaceKey);
    const now = c.clock.now();
    // An empty object is stored as none, as on update.
    const stored = req.metadata !== undefined && Object.keys(req.metadata).length > 0;
    const flag: NewFlag = {
      namespaceKey,
      key,
      name: req.name,
      description: req.description,
      enabled: req.enabled,
      type: req.type,
      createdAt: now,
      updatedAt: now,
      ...(stored ? { metadata: req.metadata } : {}),
    };
    await unique(r.flags.createFlag(flag), () => flagNotUnique(namespaceKey, key));
    // Flipt answers a create with the metadata as sent, even the `{}` it stores as none.
    return {
      ...flag,
      variants: [],
      ...(req.metadata !== undefined ? { metadata: req.metadata } : {}),
    };
  });
}

export function updateFlag(c: ConfigContext, req: UpdateFlagRequest): Promise<Flag> {
  const { namespaceKey, key } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    const before = scope.namespaceExists ? await r.flags.getFlag(namespaceKey, key) : undefined;
    if (before === undefined) throw flagNotFound(namespaceKey, key);
    if (req.defaultVariantId !== '') {
      const variant = await r.flags.getVariant(namespaceKey, req.defaultVariantId);
      if (variant?.flagKey !== key) {
        throw defaultVariantNotFound(namespaceKey, key, req.defaultVariantId);
      }
    }
    await r.flags.updateFlag({
      namespaceKey,
      key,
      name: req.name,
      description: req.description,
      enabled: req.enabled,
      defaultVariantId: req.defaultVariantId === '' ? undefined : req.defaultVariantId,
      metadata:
        req.metadata === undefined
          ? undefined
          : Object.keys(req.metadata).length === 0
            ? null
            : req.metadata,
      updatedAt: c.clock.now(),
    });
    const after = await r.flags.getFlag(namespaceKey, key);
    if (after === undefined) throw flagNotFound(namespaceKey, key);
    return after;
  });
}

export function deleteFlag(c: ConfigContext, req: DeleteFlagRequest): Promise<void> {
  return c.unitOfWork.write(req.namespaceKey, async (r, scope) => {
    if (scope.namespaceExists) await r.flags.deleteFlag(req.namespaceKey, req.key);
  });
}

export function createVariant(c: ConfigContext, req: CreateVariantRequest): Promise<Variant> {
  const { namespaceKey, flagKey } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    const flag = scope.namespaceExists ? await r.flags.getFlag(namespaceKey, flagKey) : undefined;
    if (flag === undefined) throw flagNotFound(namespaceKey, flagKey);
    const notUnique = (): Error => variantNotUnique(namespaceKey, flagKey, req.key);
    if (flag.variants.some((v) => v.key === req.key)) throw notUnique();
    const now = c.clock.now();
    const variant: Variant = {
      id: c.ids.uuid(),
      namespaceKey,
      flagKey,
      key: req.key,
      name: req.name,
      description: req.description,
      attachment: req.attachment,
      createdAt: now,
      updatedAt: now,
    };
    await referenced(unique(r.flags.createVariant(variant), notUnique), () =>
      flagNotFound(namespaceKey, flagKey),
    );
    return variant;
  });
}

export function updateVariant(c: ConfigContext, req: UpdateVariantRequest): Promise<Variant> {
  const { namespaceKey, flagKey } = req;
  return c.unitOfWork.write(namespaceKey, async (r, scope) => {
    const before = scope.namespaceExists
      ? await r.flags.getVariant(namespaceKey, req.id)
      : undefined;
    if (before?.flagKey !== flagKey) throw variantNotFound(req.key);
    const update = {
      id: req.id,
      namespaceKey,
      flagKey,
      key: req.key,
      name: req.name,
      description: req.description,
      attachment: req.attachment,
      updatedAt: c.clock.now(),
    };
    await unique(r.flags.updateVariant(update), () =>
      variantNotUnique(namespaceKey, flagKey, req.key),
    );
    return { ...update, createdAt: before.createdAt };
  });
}

export function deleteVariant(c: ConfigContext, req: DeleteVariantRequest): Promise<void> {
  return c.unitOfWork.write(req.namespaceKey, async (r, scope) => {
    if (scope.namespaceExists) await r.flags.deleteVariant(req.namespaceKey, req.flagKey, req.id);
  });
}
