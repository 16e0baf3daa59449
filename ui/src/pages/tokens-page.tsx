import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { namespaces as namespacesApi, tokens as tokensApi } from '../api/endpoints';
import type { Authentication } from '../api/types';
import { CopyButton } from '../components/copy-button';
import { ConfirmDialog, Dialog, FormDialog } from '../components/dialog';
import { NamespaceOptions, SelectField, TextField } from '../components/form-fields';
import { Icon } from '../components/icons';
import { CreateButton, ListPage, Table, TimeCell } from '../components/list-page';
import { useToast } from '../components/toast';
import { EmptyState, LoadingRows } from '../components/ui';
import { useSubmit } from '../forms';
import { fromLocalInput, relativeTime } from '../lib/datetime';
import { useSession } from '../session';

const NAME = 'io.flipt.auth.token.name';
const DESCRIPTION = 'io.flipt.auth.token.description';
const NAMESPACE = 'io.flipt.auth.token.namespace';

export function TokensPage() {
  const { info } = useSession();
  const client = useQueryClient();
  const toast = useToast();
  const query = useQuery({ queryKey: ['tokens'], queryFn: () => tokensApi.list() });
  const [creating, setCreating] = useState(false);
  const [removing, setRemoving] = useState<Authentication>();
  const tokens = (query.data?.authentications ?? []).filter((t) => t.method === 'METHOD_TOKEN');
  // Tokens are their own kind of write: the read-only mode guards configuration only.
  return (
    <ListPage
      title="Client tokens"
      subtitle={
        info.authenticationRequired
          ? 'Applications and people sign in with these tokens.'
          : 'Authentication is not required on this instance, so tokens are not checked yet.'
      }
      action={<CreateButton onClick={() => setCreating(true)}>New token</CreateButton>}
      query={query}
      label="Client tokens"
      dialogs={
        <>
          {creating ? <CreateTokenDialog onClose={() => setCreating(false)} /> : null}
          <ConfirmDialog
            open={removing !== undefined}
            onOpenChange={(o) => !o && setRemoving(undefined)}
            title={`Delete token ${removing?.metadata[NAME] || ''}?`}
            confirmLabel="Delete token"
            onConfirm={async () => {
              if (!removing) return;
              await tokensApi.remove(removing.id);
              await client.invalidateQueries({ queryKey: ['tokens'] });
              toast('Token deleted');
            }}
          >
            Applications using it are refused from now on.
            {info.authentication?.id === removing?.id
              ? ' This is the token of your own session: you will be signed out.'
              : ''}
          </ConfirmDialog>
        </>
      }
    >
      {query.isPending ? (
        <LoadingRows label="Loading tokens" />
      ) : tokens.length === 0 ? (
        <EmptyState icon="key" title="No tokens">
          Create one for each application that evaluates flags.
        </EmptyState>
      ) : (
        <Table
          columns={[
            { label: 'Name' },
            { label: 'Namespace', hideSm: true },
            { label: 'Created', hideSm: true },
            { label: 'Expires' },
            { label: <span className="sr-only">Actions</span> },
          ]}
        >
          {tokens.map((t) => {
            const expired = t.expiresAt !== undefined && Date.parse(t.expiresAt) < Date.now();
            return (
              <tr key={t.id}>
                <td className="primary-cell">
                  <strong>{t.metadata[NAME] || 'Unnamed token'}</strong>
                  {info.authentication?.id === t.id ? (
                    <span className="badge accent" style={{ marginLeft: 6 }}>
                      this session
                    </span>
                  ) : null}
                  {t.metadata[DESCRIPTION] ? (
                    <div className="secondary">{t.metadata[DESCRIPTION]}</div>
                  ) : null}
                  <div className="secondary mono">{t.id}</div>
                </td>
                <td className="hide-sm">
                  {t.metadata[NAMESPACE] ? (
                    <span className="mono">{t.metadata[NAMESPACE]}</span>
                  ) : (
                    <span className="muted">all</span>
                  )}
                </td>
                <TimeCell time={t.createdAt} />
                <td title={t.expiresAt}>
                  {t.expiresAt ? (
                    <span className={expired ? 'badge danger' : ''}>
                      {expired ? 'expired' : relativeTime(t.expiresAt)}
                    </span>
                  ) : (
                    <span className="muted">never</span>
                  )}
                </td>
                <td>
                  <button
                    type="button"
                    className="btn small ghost"
                    aria-label={`Delete token ${t.metadata[NAME] || t.id}`}
                    onClick={() => setRemoving(t)}
                  >
                    <Icon name="trash" />
                  </button>
                </td>
              </tr>
            );
          })}
        </Table>
      )}
    </ListPage>
  );
}

function CreateTokenDialog({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [namespace, setNamespace] = useState('');
  const [expires, setExpires] = useState('');
  const [secret, setSecret] = useState<string>();
  const namespaces = useQuery({ queryKey: ['namespaces'], queryFn: namespacesApi.list });
  const form = useSubmit({ '/expires/i': 'expires' });

  const submit = async () => {
    const expiresAt = fromLocalInput(expires);
    await form.run(
      async () => {
        const created = await tokensApi.create({
          name,
          description,
          ...(namespace ? { namespaceKey: namespace } : {}),
          ...(expiresAt ? { expiresAt } : {}),
        });
        setSecret(created.clientToken);
        void client.invalidateQueries({ queryKey: ['tokens'] });
      },
      {
        name: name.trim() === '' ? 'Enter a name, so you can tell tokens apart.' : undefined,
        expires:
          expires && Date.parse(expiresAt) <= Date.now()
            ? 'Choose a time in the future.'
            : undefined,
      },
    );
  };

  if (secret) {
    return (
      <Dialog open onOpenChange={(o) => !o && onClose()} title="Token created">
        <div className="stack">
          <p className="banner warning" role="note">
            Copy the token now: it is shown only once and cannot be retrieved later.
          </p>
          <div className="secret">
            <code aria-label="Client token">{secret}</code>
            <CopyButton text={secret} />
          </div>
          <p className="muted">
            Send it as <code>Authorization: Bearer &lt;token&gt;</code>.
          </p>
        </div>
        <div className="dialog-foot">
          <button type="button" className="btn primary" onClick={onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }

  return (
    <FormDialog
      onClose={onClose}
      title="New client token"
      onSubmit={submit}
      form={form}
      submitLabel="Create token"
      busyLabel="Creating…"
    >
      <TextField
        label="Name"
        error={form.errors.name}
        autoFocus
        value={name}
        onChange={setName}
        placeholder="checkout-service"
      />
      <TextField label="Description" value={description} onChange={setDescription} />
      <SelectField
        label="Namespace"
        hint="A token scoped to one namespace can read and change only that namespace."
        value={namespace}
        onChange={setNamespace}
      >
        <NamespaceOptions none="All namespaces" namespaces={namespaces.data?.namespaces ?? []} />
      </SelectField>
      <TextField
        label="Expires"
        error={form.errors.expires}
        hint="Leave empty for a token that never expires."
        type="datetime-local"
        value={expires}
        onChange={setExpires}
      />
    </FormDialog>
  );
}
