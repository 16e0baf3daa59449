import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { NAME_AND_KEY_FIELDS, useNameAndKey, useSubmit } from '../forms';
import { keyError } from '../lib/keys';
import { FormDialog } from './dialog';
import { NameAndKeyFields, TextField } from './form-fields';
import { useToast } from './toast';

/** What the page of a list gives its dialog creating a flag or segment. */
export interface CreateDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  namespace: string;
}

/**
 * Creates a flag or a segment from its name, key, description and the fields of its own,
 * then opens its page. Closing the dialog clears it for next time (`onReset` clears the
 * fields of its own).
 */
export function CreateDialog({
  kind,
  open,
  onOpenChange,
  namespace,
  keyHint,
  create,
  onReset,
  fieldsBefore,
  fieldsAfter,
}: CreateDialogProps & {
  kind: 'flag' | 'segment';
  keyHint: string;
  create: (input: { key: string; name: string; description: string }) => Promise<{ key: string }>;
  onReset: () => void;
  fieldsBefore?: ReactNode;
  fieldsAfter?: ReactNode;
}) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();
  const names = useNameAndKey();
  const [description, setDescription] = useState('');
  const form = useSubmit(NAME_AND_KEY_FIELDS);
  const Kind = kind === 'flag' ? 'Flag' : 'Segment';

  const close = () => {
    names.reset();
    setDescription('');
    onReset();
    form.reset();
    onOpenChange(false);
  };

  const submit = async () => {
    const { key, name } = names;
    let created: { key: string } | undefined;
    const ok = await form.run(
      async () => {
        created = await create({ key, name, description });
      },
      { key: keyError(key), name: name.trim() === '' ? 'Enter a name.' : undefined },
    );
    if (ok && created) {
      await client.invalidateQueries({ queryKey: [`${kind}s`, namespace] });
      toast(`${Kind} ${created.key} created`);
      close();
      void navigate(
        `/namespaces/${encodeURIComponent(namespace)}/${kind}s/${encodeURIComponent(created.key)}`,
      );
    }
  };

  return (
    <FormDialog
      open={open}
      onClose={close}
      title={`New ${kind}`}
      description={`In namespace ${namespace}.`}
      onSubmit={submit}
      form={form}
      submitLabel={`Create ${kind}`}
      busyLabel="Creating…"
    >
      {fieldsBefore}
      <NameAndKeyFields names={names} errors={form.errors} keyHint={keyHint} />
      <TextField
        label="Description"
        multiline
        error={form.errors.description}
        value={description}
        onChange={setDescription}
      />
      {fieldsAfter}
    </FormDialog>
  );
}
