import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { flags as flagsApi, variants as variantsApi } from '../api/endpoints';
import type { Flag, Variant } from '../api/types';
import { GuardedButton } from '../components/buttons';
import { DetailPage, DetailsSection, type DetailParts } from '../components/detail-page';
import { EditableList } from '../components/editable-list';
import { SelectField } from '../components/form-fields';
import { Icon } from '../components/icons';
import { Switch } from '../components/switch';
import { useToast } from '../components/toast';
import { EmptyState, PageHead, Section } from '../components/ui';
import { messageOf } from '../lib/api-error';
import { CopyFlagDialog, VariantDialog } from './flag-forms';
import { RolloutsEditor } from './rollouts-editor';
import { RulesEditor } from './rules-editor';

export interface FlagSectionProps {
  flag: Flag;
  namespace: string;
  readOnly?: string;
}

export function FlagPage() {
  return (
    <DetailPage
      kind="flag"
      get={flagsApi.get}
      remove={flagsApi.remove}
      deleteWarning={(flag) => (
        <>
          Its variants, rules and rollouts are deleted with it. Applications asking for{' '}
          <code>{flag.key}</code> will get “flag not found”. This cannot be undone.
        </>
      )}
    >
      {(flag, parts) => <FlagView flag={flag} {...parts} />}
    </DetailPage>
  );
}

function FlagView({
  flag,
  namespace,
  readOnly,
  crumbs,
  deleteButton,
}: { flag: Flag } & DetailParts) {
  const client = useQueryClient();
  const toast = useToast();
  const [copying, setCopying] = useState(false);
  const sections = { flag, namespace, readOnly };

  const setEnabled = async (enabled: boolean) => {
    try {
      const updated = await flagsApi.update(namespace, { ...flagInput(flag), enabled });
      client.setQueryData(['flag', namespace, flag.key], updated);
      void client.invalidateQueries({ queryKey: ['flags', namespace] });
      toast(`${flag.key} ${enabled ? 'enabled' : 'disabled'}`);
    } catch (err) {
      toast(messageOf(err), 'error');
    }
  };

  return (
    <>
      <PageHead
        crumbs={crumbs}
        title={
          <span className="inline" style={{ gap: 10, flexWrap: 'wrap' }}>
            {flag.name || flag.key}
            <span className="badge accent">
              {flag.type === 'BOOLEAN_FLAG_TYPE' ? 'Boolean' : 'Variant'}
            </span>
          </span>
        }
        subtitle={<span className="mono">{flag.key}</span>}
        actions={
          <>
            <label className="inline btn" style={{ cursor: readOnly ? 'not-allowed' : 'pointer' }}>
              <Switch
                checked={flag.enabled}
                onCheckedChange={(v) => void setEnabled(v)}
                label={`Enable ${flag.key}`}
                disabled={readOnly !== undefined}
                title={readOnly}
              />
              <span aria-hidden="true">{flag.enabled ? 'Enabled' : 'Disabled'}</span>
            </label>
            <GuardedButton className="btn" onClick={() => setCopying(true)} readOnly={readOnly}>
              <Icon name="copy" /> Copy to…
            </GuardedButton>
            {deleteButton}
          </>
        }
      />
      <div className="grid-2">
        <FlagSettings {...sections} />
        {flag.type === 'VARIANT_FLAG_TYPE' ? <Variants {...sections} /> : null}
      </div>
      {flag.type === 'VARIANT_FLAG_TYPE' ? (
        <RulesEditor {...sections} />
      ) : (
        <RolloutsEditor {...sections} />
      )}
      <CopyFlagDialog open={copying} onOpenChange={setCopying} namespace={namespace} flag={flag} />
    </>
  );
}

/** PUT replaces the whole flag, so every write starts from the flag as it is. */
export function flagInput(flag: Flag) {
  return {
    key: flag.key,
    name: flag.name,
    description: flag.description,
    enabled: flag.enabled,
    ...(flag.defaultVariant ? { defaultVariantId: flag.defaultVariant.id } : {}),
    ...(flag.metadata ? { metadata: flag.metadata } : {}),
  };
}

function FlagSettings({ flag, namespace, readOnly }: FlagSectionProps) {
  return (
    <DetailsSection
      id="settings-h"
      kind="flag"
      namespace={namespace}
      item={flag}
      valuesOf={(f) => ({
        name: f.name,
        description: f.description,
        defaultVariant: f.defaultVariant?.id ?? '',
      })}
      save={({ name, description, defaultVariant }) => {
        const { defaultVariantId: _, ...rest } = flagInput(flag);
        return flagsApi.update(namespace, {
          ...rest,
          name,
          description,
          ...(defaultVariant ? { defaultVariantId: defaultVariant } : {}),
        });
      }}
      fields={{ '/variant .* not found/': 'defaultVariant' }}
      readOnly={readOnly}
    >
      {(draft, change, errors) =>
        flag.type === 'VARIANT_FLAG_TYPE' ? (
          <SelectField
            label="Default variant"
            error={errors.defaultVariant}
            hint="Returned when the flag is enabled and no rule matches."
            value={draft.defaultVariant}
            disabled={readOnly !== undefined || flag.variants.length === 0}
            onChange={(defaultVariant) => change({ defaultVariant })}
          >
            <option value="">None</option>
            {flag.variants.map((v) => (
              <option key={v.id} value={v.id}>
                {v.name ? `${v.name} (${v.key})` : v.key}
              </option>
            ))}
          </SelectField>
        ) : null
      }
    </DetailsSection>
  );
}

function Variants({ flag, namespace, readOnly }: FlagSectionProps) {
  const client = useQueryClient();
  const toast = useToast();
  const [editing, setEditing] = useState<Variant | 'new'>();
  return (
    <Section
      id="variants-h"
      title="Variants"
      intro="What the flag can return."
      action={
        <GuardedButton className="btn small" onClick={() => setEditing('new')} readOnly={readOnly}>
          <Icon name="plus" /> Add variant
        </GuardedButton>
      }
    >
      <EditableList
        items={flag.variants}
        itemKey={(v) => v.id}
        what={(v) => `variant ${v.key}`}
        readOnly={readOnly}
        render={(v) => (
          <>
            <span className="item-title">
              <span className="mono">{v.key}</span>
              {v.name ? <span className="muted">{v.name}</span> : null}
              {flag.defaultVariant?.id === v.id ? (
                <span className="badge accent">default</span>
              ) : null}
              {v.attachment ? <span className="badge">JSON</span> : null}
            </span>
            {v.description ? <span className="item-sub">{v.description}</span> : null}
          </>
        )}
        empty={
          <EmptyState icon="flag" title="No variants">
            Add at least one variant, then a rule to choose between them.
          </EmptyState>
        }
        editing={editing}
        onEditingChange={setEditing}
        dialog={(variant, onClose) => (
          <VariantDialog onClose={onClose} namespace={namespace} flag={flag} variant={variant} />
        )}
        removeTitle={(v) => `Delete variant ${v?.key ?? ''}?`}
        confirmLabel="Delete variant"
        onRemove={async (v) => {
          await variantsApi.remove(namespace, flag.key, v.id);
          await client.invalidateQueries({ queryKey: ['flag', namespace, flag.key] });
          void client.invalidateQueries({ queryKey: ['rules', namespace, flag.key] });
          toast(`Variant ${v.key} deleted`);
        }}
        removal={() =>
          'Distributions that give traffic to this variant are removed, and it stops being the default variant if it was.'
        }
      />
    </Section>
  );
}
