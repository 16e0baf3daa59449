import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { segments as segmentsApi, constraints as constraintsApi } from '../api/endpoints';
import type { Constraint, MatchType, Segment } from '../api/types';
import { ConfirmDialog } from '../components/dialog';
import { SaveBar, TextField } from '../components/form-fields';
import { EditDeleteButtons, GuardedButton } from '../components/buttons';
import { Icon } from '../components/icons';
import { useToast } from '../components/toast';
import { EmptyState, ErrorPanel, LoadingRows, PageHead } from '../components/ui';
import { useSubmit } from '../forms';
import { describeConstraint, TYPE_LABELS } from '../lib/constraints';
import { useNamespace } from '../namespace';
import { useReadOnly } from '../session';
import { ConstraintDialog } from './constraint-dialog';
import { MatchTypeChoice } from './segments-page';

export function SegmentPage() {
  const namespace = useNamespace();
  const { segmentKey = '' } = useParams();
  const readOnly = useReadOnly();
  const client = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();
  const [deleting, setDeleting] = useState(false);
  const query = useQuery({
    queryKey: ['segment', namespace, segmentKey],
    queryFn: () => segmentsApi.get(namespace, segmentKey),
  });
  const nsLink = `/namespaces/${encodeURIComponent(namespace)}`;
  const crumbs = (
    <>
      <Link to={`${nsLink}/segments`}>Segments</Link>
      <span aria-hidden="true">/</span>
      <span className="mono">{segmentKey}</span>
    </>
  );
  const segment = query.data;
  if (query.isPending) return <LoadingRows label="Loading segment" />;
  if (query.isError || !segment) {
    return (
      <>
        <PageHead title={segmentKey} crumbs={crumbs} />
        <ErrorPanel error={query.error} retry={() => void query.refetch()} />
      </>
    );
  }
  return (
    <>
      <PageHead
        crumbs={crumbs}
        title={segment.name || segment.key}
        subtitle={<span className="mono">{segment.key}</span>}
        actions={
          <GuardedButton
            className="btn danger"
            onClick={() => setDeleting(true)}
            readOnly={readOnly}
          >
            <Icon name="trash" /> Delete
          </GuardedButton>
        }
      />
      <div className="grid-2">
        <SegmentSettings segment={segment} namespace={namespace} readOnly={readOnly} />
        <Constraints segment={segment} namespace={namespace} readOnly={readOnly} />
      </div>
      <ConfirmDialog
        open={deleting}
        onOpenChange={setDeleting}
        title={`Delete segment ${segment.key}?`}
        confirmLabel="Delete segment"
        onConfirm={async () => {
          await segmentsApi.remove(namespace, segment.key);
          client.removeQueries({ queryKey: ['segment', namespace, segment.key] });
          await client.invalidateQueries({ queryKey: ['segments', namespace] });
          toast(`Segment ${segment.key} deleted`);
          void navigate(`${nsLink}/segments`);
        }}
      >
        A segment used by a rule or rollout cannot be deleted: remove those first. Its constraints
        are deleted with it.
      </ConfirmDialog>
    </>
  );
}

function SegmentSettings({
  segment,
  namespace,
  readOnly,
}: {
  segment: Segment;
  namespace: string;
  readOnly?: string;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const [name, setName] = useState(segment.name);
  const [description, setDescription] = useState(segment.description);
  const [matchType, setMatchType] = useState<MatchType>(segment.matchType);
  const form = useSubmit({ name: 'name' });
  useEffect(() => {
    setName(segment.name);
    setDescription(segment.description);
    setMatchType(segment.matchType);
  }, [segment]);
  const dirty =
    name !== segment.name || description !== segment.description || matchType !== segment.matchType;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await form.run(
      async () => {
        const updated = await segmentsApi.update(namespace, {
          key: segment.key,
          name,
          description,
          matchType,
        });
        client.setQueryData(['segment', namespace, segment.key], updated);
        void client.invalidateQueries({ queryKey: ['segments', namespace] });
      },
      { name: name.trim() === '' ? 'Enter a name.' : undefined },
    );
    if (ok) toast('Segment saved');
  };
  const ro = readOnly !== undefined;
  return (
    <section className="card section" aria-labelledby="seg-settings-h">
      <div className="section-head">
        <h2 id="seg-settings-h">Details</h2>
      </div>
      <form className="form card-body" onSubmit={submit} noValidate>
        <TextField
          label="Name"
          error={form.errors.name}
          value={name}
          disabled={ro}
          onChange={setName}
        />
        <TextField
          label="Description"
          multiline
          value={description}
          disabled={ro}
          onChange={setDescription}
        />
        <MatchTypeChoice value={matchType} onChange={setMatchType} disabled={ro} />
        <SaveBar error={form.formError} busy={form.busy} dirty={dirty} readOnly={readOnly} />
      </form>
    </section>
  );
}

function Constraints({
  segment,
  namespace,
  readOnly,
}: {
  segment: Segment;
  namespace: string;
  readOnly?: string;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const [editing, setEditing] = useState<Constraint | 'new'>();
  const [removing, setRemoving] = useState<Constraint>();
  return (
    <section className="card section" aria-labelledby="constraints-h">
      <div className="section-head">
        <div>
          <h2 id="constraints-h">Constraints</h2>
          <p>
            {segment.matchType === 'ANY_MATCH_TYPE'
              ? 'An entity matches when any one passes.'
              : 'An entity matches when all pass.'}
          </p>
        </div>
        <GuardedButton className="btn small" onClick={() => setEditing('new')} readOnly={readOnly}>
          <Icon name="plus" /> Add constraint
        </GuardedButton>
      </div>
      {segment.constraints.length === 0 ? (
        <EmptyState icon="segment" title="No constraints">
          A segment without constraints matches every entity.
        </EmptyState>
      ) : (
        <ul className="items">
          {segment.constraints.map((c) => (
            <li key={c.id} className="item">
              <div className="item-main">
                <span className="item-title">
                  <span className="badge">{TYPE_LABELS[c.type]}</span>
                  <span className="mono">{describeConstraint(c)}</span>
                </span>
                {c.description ? <span className="item-sub">{c.description}</span> : null}
              </div>
              <EditDeleteButtons
                what={`constraint on ${c.property}`}
                readOnly={readOnly}
                onEdit={() => setEditing(c)}
                onDelete={() => setRemoving(c)}
              />
            </li>
          ))}
        </ul>
      )}
      {editing ? (
        <ConstraintDialog
          key={editing === 'new' ? 'new' : editing.id}
          onClose={() => setEditing(undefined)}
          namespace={namespace}
          segmentKey={segment.key}
          constraint={editing === 'new' ? undefined : editing}
        />
      ) : null}
      <ConfirmDialog
        open={removing !== undefined}
        onOpenChange={(o) => !o && setRemoving(undefined)}
        title="Delete this constraint?"
        confirmLabel="Delete constraint"
        onConfirm={async () => {
          if (!removing) return;
          await constraintsApi.remove(namespace, segment.key, removing.id);
          await client.invalidateQueries({ queryKey: ['segment', namespace, segment.key] });
          void client.invalidateQueries({ queryKey: ['segments', namespace] });
          toast('Constraint deleted');
        }}
      >
        {removing ? <code>{describeConstraint(removing)}</code> : null} will no longer be checked.
      </ConfirmDialog>
    </section>
  );
}
