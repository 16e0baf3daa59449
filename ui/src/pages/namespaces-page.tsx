import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { namespaces as namespacesApi } from '../api/endpoints';
import type { Namespace } from '../api/types';
import { FormDialog } from '../components/dialog';
import { EditableList } from '../components/editable-list';
import { CreateButton, ListPage } from '../components/list-page';
import { useToast } from '../components/toast';
import { NameAndKeyFields, TextField } from '../components/form-fields';
import { EmptyState, LoadingRows } from '../components/ui';
import { NAME_AND_KEY_FIELDS, useNameAndKey, useSubmit } from '../forms';
import { keyError } from '../lib/keys';
import { useReadOnly } from '../session';

export function NamespacesPage() {
  const readOnly = useReadOnly();
  const client = useQueryClient();
  const toast = useToast();
  const query = useQuery({ queryKey: ['namespaces'], queryFn: namespacesApi.list });
  const [editing, setEditing] = useState<Namespace | 'new'>();
  return (
    <ListPage
      title="Namespaces"
      subtitle="Separate sets of flags and segments, for teams, products or environments."
      action={
        <CreateButton onClick={() => setEditing('new')} readOnly={readOnly}>
          New namespace
        </CreateButton>
      }
      query={query}
      label="Namespaces"
    >
      <EditableList
        items={query.data?.namespaces ?? []}
        itemKey={(n) => n.key}
        what={(n) => `namespace ${n.key}`}
        readOnly={readOnly}
        deleteBlocked={(n) => (n.protected ? 'The default namespace cannot be deleted' : undefined)}
        render={(n) => (
          <>
            <span className="item-title">
              <Link to={`/namespaces/${encodeURIComponent(n.key)}/flags`}>{n.name}</Link>
              <span className="muted mono">{n.key}</span>
              {n.protected ? (
                <span className="badge" title="The default namespace cannot be deleted">
                  protected
                </span>
              ) : null}
            </span>
            {n.description ? <span className="item-sub">{n.description}</span> : null}
          </>
        )}
        empty={
          query.isPending ? (
            <LoadingRows label="Loading namespaces" />
          ) : (
            <EmptyState icon="namespace" title="No namespaces" />
          )
        }
        editing={editing}
        onEditingChange={setEditing}
        dialog={(namespace, onClose) => <NamespaceDialog namespace={namespace} onClose={onClose} />}
        removeTitle={(n) => `Delete namespace ${n?.key ?? ''}?`}
        confirmLabel="Delete namespace"
        onRemove={async (n) => {
          await namespacesApi.remove(n.key);
          await client.invalidateQueries({ queryKey: ['namespaces'] });
          toast(`Namespace ${n.key} deleted`);
        }}
        removal={() =>
          'A namespace can be deleted only once its flags are deleted; its segments go with it.'
        }
      />
    </ListPage>
  );
}

function NamespaceDialog({ namespace, onClose }: { namespace?: Namespace; onClose: () => void }) {
  const client = useQueryClient();
  const toast = useToast();
  const names = useNameAndKey(namespace);
  const [description, setDescription] = useState(namespace?.description ?? '');
  const form = useSubmit(NAME_AND_KEY_FIELDS);
  const submit = async () => {
    const { key, name } = names;
    const ok = await form.run(
      () =>
        namespace
          ? namespacesApi.update({ key, name, description })
          : namespacesApi.create({ key, name, description }),
      {
        key: namespace ? undefined : keyError(key),
        name: name.trim() === '' ? 'Enter a name.' : undefined,
      },
    );
    if (ok) {
      await client.invalidateQueries({ queryKey: ['namespaces'] });
      toast(namespace ? `Namespace ${key} saved` : `Namespace ${key} created`);
      onClose();
    }
  };
  return (
    <FormDialog
      onClose={onClose}
      title={namespace ? `Edit namespace ${namespace.key}` : 'New namespace'}
      onSubmit={submit}
      form={form}
      submitLabel={namespace ? 'Save' : 'Create namespace'}
    >
      <NameAndKeyFields
        names={names}
        errors={form.errors}
        keyHint={namespace ? 'A namespace key cannot change.' : 'Letters, digits, - _ , only.'}
        keyLocked={namespace !== undefined}
      />
      <TextField label="Description" multiline value={description} onChange={setDescription} />
    </FormDialog>
  );
}
