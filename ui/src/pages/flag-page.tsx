import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { flags as flagsApi, variants as variantsApi } from '../api/endpoints';
import type { Flag, Variant } from '../api/types';
import { ConfirmDialog } from '../components/dialog';
import { SaveBar, SelectField, TextField } from '../components/form-fields';
import { EditDeleteButtons, GuardedButton } from '../components/buttons';
import { Icon } from '../components/icons';
import { Switch } from '../components/switch';
import { useToast } from '../components/toast';
import { EmptyState, ErrorPanel, LoadingRows, PageHead } from '../components/ui';
import { useSubmit } from '../forms';
import { messageOf } from '../lib/api-error';
import { useNamespace } from '../namespace';
import { useReadOnly } from '../session';
import { CopyFlagDialog, VariantDialog } from './flag-forms';
import { RolloutsEditor } from './rollouts-editor';
import { RulesEditor } from './rules-editor';

export function FlagPage() {
  const namespace = useNamespace();
  const { flagKey = '' } = useParams();
  const readOnly = useReadOnly();
  const client = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();
  const [copying, setCopying] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const query = useQuery({
    queryKey: ['flag', namespace, flagKey],
    queryFn: () => flagsApi.get(namespace, flagKey),
  });
  const flag = query.data;
  const nsLink = `/namespaces/${encodeURIComponent(namespace)}`;

  const crumbs = (
    <>
      <Link to={`${nsLink}/flags`}>Flags</Link>
      <span aria-hidden="true">/</span>
      <span className="mono">{flagKey}</span>
    </>
  );

  if (query.isPending) return <LoadingRows label="Loading flag" />;
  if (query.isError || !flag) {
    return (
      <>
        <PageHead title={flagKey} crumbs={crumbs} />
        <ErrorPanel error={query.error} retry={() => void query.refetch()} />
      </>
    );
  }

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
            <GuardedButton
              className="btn danger"
              onClick={() => setDeleting(true)}
              readOnly={readOnly}
            >
              <Icon name="trash" /> Delete
            </GuardedButton>
          </>
        }
      />
      <div className="grid-2">
        <FlagSettings flag={flag} namespace={namespace} readOnly={readOnly} />
        {flag.type === 'VARIANT_FLAG_TYPE' ? (
          <Variants flag={flag} namespace={namespace} readOnly={readOnly} />
        ) : null}
      </div>
      {flag.type === 'VARIANT_FLAG_TYPE' ? (
        <RulesEditor flag={flag} namespace={namespace} readOnly={readOnly} />
      ) : (
        <RolloutsEditor flag={flag} namespace={namespace} readOnly={readOnly} />
      )}
      <CopyFlagDialog open={copying} onOpenChange={setCopying} namespace={namespace} flag={flag} />
      <ConfirmDialog
        open={deleting}
        onOpenChange={setDeleting}
        title={`Delete flag ${flag.key}?`}
        confirmLabel="Delete flag"
        onConfirm={async () => {
          await flagsApi.remove(namespace, flag.key);
          client.removeQueries({ queryKey: ['flag', namespace, flag.key] });
          await client.invalidateQueries({ queryKey: ['flags', namespace] });
          toast(`Flag ${flag.key} deleted`);
          void navigate(`${nsLink}/flags`);
        }}
      >
        Its variants, rules and rollouts are deleted with it. Applications asking for{' '}
        <code>{flag.key}</code> will get “flag not found”. This cannot be undone.
      </ConfirmDialog>
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

function FlagSettings({
  flag,
  namespace,
  readOnly,
}: {
  flag: Flag;
  namespace: string;
  readOnly?: string;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const [name, setName] = useState(flag.name);
  const [description, setDescription] = useState(flag.description);
  const [defaultVariant, setDefaultVariant] = useState(flag.defaultVariant?.id ?? '');
  const form = useSubmit({ name: 'name', '/variant .* not found/': 'defaultVariant' });

  useEffect(() => {
    setName(flag.name);
    setDescription(flag.description);
    setDefaultVariant(flag.defaultVariant?.id ?? '');
  }, [flag]);

  const dirty =
    name !== flag.name ||
    description !== flag.description ||
    defaultVariant !== (flag.defaultVariant?.id ?? '');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await form.run(
      async () => {
        const { defaultVariantId: _, ...rest } = flagInput(flag);
        const updated = await flagsApi.update(namespace, {
          ...rest,
          name,
          description,
          ...(defaultVariant ? { defaultVariantId: defaultVariant } : {}),
        });
        client.setQueryData(['flag', namespace, flag.key], updated);
        void client.invalidateQueries({ queryKey: ['flags', namespace] });
      },
      { name: name.trim() === '' ? 'Enter a name.' : undefined },
    );
    if (ok) toast('Flag saved');
  };

  return (
    <section className="card section" aria-labelledby="settings-h">
      <div className="section-head">
        <h2 id="settings-h">Details</h2>
      </div>
      <form className="form card-body" onSubmit={submit} noValidate>
        <TextField
          label="Name"
          error={form.errors.name}
          value={name}
          disabled={readOnly !== undefined}
          onChange={setName}
        />
        <TextField
          label="Description"
          multiline
          value={description}
          disabled={readOnly !== undefined}
          onChange={setDescription}
        />
        {flag.type === 'VARIANT_FLAG_TYPE' ? (
          <SelectField
            label="Default variant"
            error={form.errors.defaultVariant}
            hint="Returned when the flag is enabled and no rule matches."
            value={defaultVariant}
            disabled={readOnly !== undefined || flag.variants.length === 0}
            onChange={setDefaultVariant}
          >
            <option value="">None</option>
            {flag.variants.map((v) => (
              <option key={v.id} value={v.id}>
                {v.name ? `${v.name} (${v.key})` : v.key}
              </option>
            ))}
          </SelectField>
        ) : null}
        <SaveBar error={form.formError} busy={form.busy} dirty={dirty} readOnly={readOnly} />
      </form>
    </section>
  );
}

function Variants({
  flag,
  namespace,
  readOnly,
}: {
  flag: Flag;
  namespace: string;
  readOnly?: string;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const [editing, setEditing] = useState<Variant | 'new'>();
  const [removing, setRemoving] = useState<Variant>();
  return (
    <section className="card section" aria-labelledby="variants-h">
      <div className="section-head">
        <div>
          <h2 id="variants-h">Variants</h2>
          <p>What the flag can return.</p>
        </div>
        <GuardedButton className="btn small" onClick={() => setEditing('new')} readOnly={readOnly}>
          <Icon name="plus" /> Add variant
        </GuardedButton>
      </div>
      {flag.variants.length === 0 ? (
        <EmptyState icon="flag" title="No variants">
          Add at least one variant, then a rule to choose between them.
        </EmptyState>
      ) : (
        <ul className="items">
          {flag.variants.map((v) => (
            <li className="item" key={v.id}>
              <div className="item-main">
                <span className="item-title">
                  <span className="mono">{v.key}</span>
                  {v.name ? <span className="muted">{v.name}</span> : null}
                  {flag.defaultVariant?.id === v.id ? (
                    <span className="badge accent">default</span>
                  ) : null}
                  {v.attachment ? <span className="badge">JSON</span> : null}
                </span>
                {v.description ? <span className="item-sub">{v.description}</span> : null}
              </div>
              <EditDeleteButtons
                what={`variant ${v.key}`}
                readOnly={readOnly}
                onEdit={() => setEditing(v)}
                onDelete={() => setRemoving(v)}
              />
            </li>
          ))}
        </ul>
      )}
      {editing ? (
        <VariantDialog
          key={editing === 'new' ? 'new' : editing.id}
          open
          onOpenChange={(o) => !o && setEditing(undefined)}
          namespace={namespace}
          flag={flag}
          variant={editing === 'new' ? undefined : editing}
        />
      ) : null}
      <ConfirmDialog
        open={removing !== undefined}
        onOpenChange={(o) => !o && setRemoving(undefined)}
        title={`Delete variant ${removing?.key ?? ''}?`}
        confirmLabel="Delete variant"
        onConfirm={async () => {
          if (!removing) return;
          await variantsApi.remove(namespace, flag.key, removing.id);
          await client.invalidateQueries({ queryKey: ['flag', namespace, flag.key] });
          void client.invalidateQueries({ queryKey: ['rules', namespace, flag.key] });
          toast(`Variant ${removing.key} deleted`);
        }}
      >
        Distributions that give traffic to this variant are removed, and it stops being the default
        variant if it was.
      </ConfirmDialog>
    </section>
  );
}
