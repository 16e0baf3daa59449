import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import {
  flags as flagsApi,
  namespaces as namespacesApi,
  variants as variantsApi,
} from '../api/endpoints';
import type { Flag, FlagType, Variant } from '../api/types';
import { CreateDialog, type CreateDialogProps } from '../components/create-dialog';
import { FormDialog } from '../components/dialog';
import { ChoiceGroup, NamespaceOptions, SelectField, TextField } from '../components/form-fields';
import { JsonEditor } from '../components/json-editor';
import { useToast } from '../components/toast';
import { Field } from '../components/ui';
import { useSubmit } from '../forms';
import { useSession } from '../session';

const FLAG_TYPES = [
  {
    value: 'BOOLEAN_FLAG_TYPE',
    label: 'Boolean',
    detail: 'On or off, with percentage and segment rollouts.',
  },
  {
    value: 'VARIANT_FLAG_TYPE',
    label: 'Variant',
    detail: 'Picks one of several variants, by rules and distributions.',
  },
] as const;

export function CreateFlagDialog({ open, onOpenChange, namespace }: CreateDialogProps) {
  const [type, setType] = useState<FlagType>('BOOLEAN_FLAG_TYPE');
  return (
    <CreateDialog
      kind="flag"
      open={open}
      onOpenChange={onOpenChange}
      namespace={namespace}
      keyHint="What applications ask for. Letters, digits, - _ , only; cannot change later."
      create={(input) => flagsApi.create(namespace, { ...input, type, enabled: false })}
      onReset={() => setType('BOOLEAN_FLAG_TYPE')}
      fieldsBefore={
        <ChoiceGroup
          legend="Type"
          name="type"
          value={type}
          onChange={setType}
          options={FLAG_TYPES}
        />
      }
    />
  );
}

const VARIANT_FIELDS = {
  key: 'key',
  attachment: 'attachment',
  '/is not unique/': 'key',
  '/attachment|JSON/i': 'attachment',
};

export function VariantDialog({
  onClose,
  namespace,
  flag,
  variant,
}: {
  onClose: () => void;
  namespace: string;
  flag: Flag;
  variant?: Variant;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const [key, setKey] = useState(variant?.key ?? '');
  const [name, setName] = useState(variant?.name ?? '');
  const [description, setDescription] = useState(variant?.description ?? '');
  const [attachment, setAttachment] = useState(prettyJson(variant?.attachment ?? ''));
  const form = useSubmit(VARIANT_FIELDS);

  const submit = async () => {
    const input = { key: key.trim(), name, description, attachment: attachment.trim() };
    const ok = await form.run(
      () =>
        variant
          ? variantsApi.update(namespace, flag.key, variant.id, input)
          : variantsApi.create(namespace, flag.key, input),
      {
        key: input.key === '' ? 'Enter a key.' : undefined,
        attachment: jsonError(input.attachment),
      },
    );
    if (ok) {
      await client.invalidateQueries({ queryKey: ['flag', namespace, flag.key] });
      void client.invalidateQueries({ queryKey: ['flags', namespace] });
      toast(variant ? `Variant ${input.key} saved` : `Variant ${input.key} added`);
      onClose();
    }
  };

  return (
    <FormDialog
      onClose={onClose}
      title={variant ? `Edit variant ${variant.key}` : 'New variant'}
      wide
      onSubmit={submit}
      form={form}
      submitLabel={variant ? 'Save variant' : 'Add variant'}
    >
      <div className="row">
        <TextField
          label="Key"
          mono
          error={form.errors.key}
          autoFocus
          value={key}
          onChange={setKey}
        />
        <TextField label="Name" error={form.errors.name} value={name} onChange={setName} />
      </div>
      <TextField label="Description" value={description} onChange={setDescription} />
      <Field
        label="Attachment (JSON)"
        error={form.errors.attachment}
        hint='Optional data returned with this variant, for example {"color": "blue"}. Press Escape, then Tab, to leave the editor.'
      >
        {(a) => (
          <JsonEditor
            id={a.id}
            label="Attachment (JSON)"
            value={attachment}
            onChange={setAttachment}
            invalid={a['aria-invalid']}
            describedBy={a['aria-describedby']}
          />
        )}
      </Field>
    </FormDialog>
  );
}

export function prettyJson(text: string): string {
  if (text === '') return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function jsonError(text: string): string | undefined {
  if (text === '') return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    return `Not valid JSON: ${(err as Error).message}`;
  }
}

const COPY_FIELDS = {
  targetNamespaceKey: 'target',
  '/namespace .* not found/': 'target',
  '/is not unique|already exists/': 'target',
};

export function CopyFlagDialog({
  open,
  onOpenChange,
  namespace,
  flag,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  namespace: string;
  flag: Flag;
}) {
  const { info } = useSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();
  const list = useQuery({
    queryKey: ['namespaces'],
    queryFn: namespacesApi.list,
    enabled: open && info.namespaceKey === undefined,
  });
  const targets = (list.data?.namespaces ?? []).filter((n) => n.key !== namespace);
  const [target, setTarget] = useState('');
  const form = useSubmit(COPY_FIELDS);

  const submit = async () => {
    const ok = await form.run(() => flagsApi.copy(namespace, flag.key, target), {
      target: target === '' ? 'Choose a namespace.' : undefined,
    });
    if (ok) {
      await client.invalidateQueries({ queryKey: ['flags', target] });
      void client.invalidateQueries({ queryKey: ['segments', target] });
      toast(`${flag.key} copied to ${target}`);
      onOpenChange(false);
      void navigate(
        `/namespaces/${encodeURIComponent(target)}/flags/${encodeURIComponent(flag.key)}`,
      );
    }
  };

  return (
    <FormDialog
      open={open}
      onClose={() => onOpenChange(false)}
      title={`Copy ${flag.key} to another namespace`}
      description="Copies the flag with its variants, rules and rollouts. Segments it uses are copied too when the other namespace lacks them. Nothing is written unless everything can be."
      onSubmit={submit}
      form={form}
      submitLabel="Copy flag"
      busyLabel="Copying…"
    >
      <SelectField
        label="Target namespace"
        error={form.errors.target}
        value={target}
        onChange={setTarget}
      >
        <NamespaceOptions none="Choose…" namespaces={targets} />
      </SelectField>
      {list.isSuccess && targets.length === 0 ? (
        <p className="muted">There is no other namespace yet. Create one under Namespaces first.</p>
      ) : null}
    </FormDialog>
  );
}
