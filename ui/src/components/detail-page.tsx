import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useSubmit, type FieldErrors } from '../forms';
import { useNamespace } from '../namespace';
import { useReadOnly } from '../session';
import { GuardedButton } from './buttons';
import { ConfirmDialog } from './dialog';
import { Form, SaveBar, TextField } from './form-fields';
import { Icon } from './icons';
import { useToast } from './toast';
import { ErrorPanel, LoadingRows, PageHead, Section } from './ui';

/** What the page of a flag or segment gives the view of the thing itself. */
export interface DetailParts {
  namespace: string;
  readOnly?: string;
  crumbs: ReactNode;
  /** Deletes the thing, after asking, and goes back to the list. */
  deleteButton: ReactNode;
}

/**
 * The page of one flag or segment (its key is the route's `flagKey` or `segmentKey`):
 * breadcrumbs back to its list, a placeholder while it loads, the error (with the title and
 * breadcrumbs still there) when it cannot, and its Delete button.
 */
export function DetailPage<T extends { key: string }>({
  kind,
  get,
  remove,
  deleteWarning,
  children,
}: {
  kind: 'flag' | 'segment';
  get: (namespace: string, key: string) => Promise<T>;
  remove: (namespace: string, key: string) => Promise<unknown>;
  /** What deleting it means, said before it is deleted. */
  deleteWarning: (item: T) => ReactNode;
  children: (item: T, parts: DetailParts) => ReactNode;
}) {
  const namespace = useNamespace();
  const itemKey = useParams()[`${kind}Key`] ?? '';
  const readOnly = useReadOnly();
  const client = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();
  const query = useQuery({
    queryKey: [kind, namespace, itemKey],
    queryFn: () => get(namespace, itemKey),
  });
  const listHref = `/namespaces/${encodeURIComponent(namespace)}/${kind}s`;
  const Kind = kind === 'flag' ? 'Flag' : 'Segment';
  const crumbs = (
    <>
      <Link to={listHref}>{`${Kind}s`}</Link>
      <span aria-hidden="true">/</span>
      <span className="mono">{itemKey}</span>
    </>
  );
  const item = query.data;
  if (query.isPending) return <LoadingRows label={`Loading ${kind}`} />;
  if (query.isError || item === undefined) {
    return (
      <>
        <PageHead title={itemKey} crumbs={crumbs} />
        <ErrorPanel error={query.error} retry={() => void query.refetch()} />
      </>
    );
  }
  const deleteButton = (
    <DeleteButton
      readOnly={readOnly}
      title={`Delete ${kind} ${item.key}?`}
      confirmLabel={`Delete ${kind}`}
      onConfirm={async () => {
        await remove(namespace, item.key);
        client.removeQueries({ queryKey: [kind, namespace, item.key] });
        await client.invalidateQueries({ queryKey: [`${kind}s`, namespace] });
        toast(`${Kind} ${item.key} deleted`);
        void navigate(listHref);
      }}
    >
      {deleteWarning(item)}
    </DeleteButton>
  );
  return children(item, { namespace, readOnly, crumbs, deleteButton });
}

/** A page's Delete button, and the question it asks before deleting. */
function DeleteButton({
  readOnly,
  title,
  confirmLabel,
  onConfirm,
  children,
}: {
  readOnly?: string;
  title: string;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  /** What deleting means, said in the question. */
  children: ReactNode;
}) {
  const [deleting, setDeleting] = useState(false);
  return (
    <>
      <GuardedButton className="btn danger" onClick={() => setDeleting(true)} readOnly={readOnly}>
        <Icon name="trash" /> Delete
      </GuardedButton>
      <ConfirmDialog
        open={deleting}
        onOpenChange={setDeleting}
        title={title}
        confirmLabel={confirmLabel}
        onConfirm={onConfirm}
      >
        {children}
      </ConfirmDialog>
    </>
  );
}

/**
 * The Details card of a flag or segment: a draft of its name, description and the fields
 * given as children, saved with Save once it differs. The draft starts again from the item
 * whenever the item changes.
 */
export function DetailsSection<
  T extends { key: string },
  D extends { name: string; description: string },
>({
  id,
  kind,
  namespace,
  item,
  valuesOf,
  save,
  fields,
  readOnly,
  children,
}: {
  id: string;
  kind: 'flag' | 'segment';
  namespace: string;
  item: T;
  /** The editable values, as the item holds them. */
  valuesOf: (item: T) => D;
  /** Writes the draft, answering the item as saved. */
  save: (draft: D) => Promise<T>;
  /** Where the service's refusals belong, besides the name (see fieldOfError). */
  fields?: Readonly<Record<string, string>>;
  readOnly?: string;
  children?: (draft: D, change: (patch: Partial<D>) => void, errors: FieldErrors) => ReactNode;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const [draft, setDraft] = useState(() => valuesOf(item));
  const form = useSubmit({ name: 'name', ...fields });
  useEffect(() => setDraft(valuesOf(item)), [item]);
  const saved = valuesOf(item);
  const dirty = (Object.keys(saved) as (keyof D)[]).some((k) => draft[k] !== saved[k]);
  const change = (patch: Partial<D>) => setDraft((d) => ({ ...d, ...patch }));

  const submit = async () => {
    const ok = await form.run(
      async () => {
        const updated = await save(draft);
        client.setQueryData([kind, namespace, item.key], updated);
        void client.invalidateQueries({ queryKey: [`${kind}s`, namespace] });
      },
      { name: draft.name.trim() === '' ? 'Enter a name.' : undefined },
    );
    if (ok) toast(`${kind === 'flag' ? 'Flag' : 'Segment'} saved`);
  };

  return (
    <Section id={id} title="Details">
      <Form className="form card-body" onSubmit={submit}>
        <TextField
          label="Name"
          error={form.errors.name}
          value={draft.name}
          disabled={readOnly !== undefined}
          onChange={(name) => change({ name } as Partial<D>)}
        />
        <TextField
          label="Description"
          multiline
          value={draft.description}
          disabled={readOnly !== undefined}
          onChange={(description) => change({ description } as Partial<D>)}
        />
        {children?.(draft, change, form.errors)}
        <SaveBar error={form.formError} busy={form.busy} dirty={dirty} readOnly={readOnly} />
      </Form>
    </Section>
  );
}
