import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import {
  rollouts as rolloutsApi,
  segments as segmentsApi,
  type RolloutInput,
} from '../api/endpoints';
import type { Flag, Rollout, SegmentOperator } from '../api/types';
import { ConfirmDialog, Dialog } from '../components/dialog';
import { Icon } from '../components/icons';
import { SegmentPicker } from '../components/segment-picker';
import { SortableList } from '../components/sortable-list';
import { useToast } from '../components/toast';
import { EmptyState, ErrorPanel, Field, LoadingRows } from '../components/ui';
import { useSubmit } from '../forms';
import { messageOf } from '../lib/api-error';
import { changedOrder, move } from '../lib/reorder';
import { joinSegments, rolloutSegments } from '../lib/segments';

export function RolloutsEditor({
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
  const key = ['rollouts', namespace, flag.key];
  const query = useQuery({ queryKey: key, queryFn: () => rolloutsApi.list(namespace, flag.key) });
  const [items, setItems] = useState<Rollout[]>([]);
  const [editing, setEditing] = useState<Rollout | 'new'>();
  const [removing, setRemoving] = useState<Rollout>();
  useEffect(() => setItems(query.data?.rules ?? []), [query.data]);

  const reorder = async (next: Rollout[]) => {
    const ids = changedOrder(items, next);
    if (!ids) return;
    const before = items;
    setItems(next);
    try {
      await rolloutsApi.order(namespace, flag.key, ids);
      toast('Rollout order saved');
      void client.invalidateQueries({ queryKey: key });
    } catch (err) {
      setItems(before);
      toast(`Could not reorder: ${messageOf(err)}`, 'error');
    }
  };

  return (
    <section className="card section" aria-labelledby="rollouts-h">
      <div className="section-head">
        <div>
          <h2 id="rollouts-h">Rollouts</h2>
          <p>
            Checked from the top; the first that applies decides the value. Otherwise the flag
            returns <strong>{flag.enabled ? 'true' : 'false'}</strong> (its enabled state).
          </p>
        </div>
        <button
          type="button"
          className="btn small"
          onClick={() => setEditing('new')}
          disabled={readOnly !== undefined}
          title={readOnly}
        >
          <Icon name="plus" /> Add rollout
        </button>
      </div>
      {query.isPending ? (
        <LoadingRows label="Loading rollouts" />
      ) : query.isError ? (
        <div className="card-body">
          <ErrorPanel error={query.error} retry={() => void query.refetch()} />
        </div>
      ) : items.length === 0 ? (
        <EmptyState icon="segment" title="No rollouts">
          Everyone gets <strong>{flag.enabled ? 'true' : 'false'}</strong>. Add a rollout to target
          a segment or a percentage of entities.
        </EmptyState>
      ) : (
        <SortableList
          items={items}
          onReorder={(next) => void reorder(next)}
          disabled={readOnly !== undefined}
          label={(r, i) => `rollout ${i + 1} (${describeRollout(r)})`}
          render={(rollout, index, handle) => (
            <>
              {handle}
              <span className="rank" aria-label={`Rank ${index + 1}`}>
                {index + 1}
              </span>
              <div className="item-main">
                <span className="item-title">
                  {rollout.threshold ? (
                    <>
                      <span className="badge">Threshold</span> {rollout.threshold.percentage}% of
                      entities
                    </>
                  ) : (
                    <>
                      <span className="badge">Segment</span>
                      {rolloutSegments(rollout).map((s, i) => (
                        <span key={s} className="inline">
                          {i > 0 ? (
                            <span className="badge">
                              {rollout.segment?.segmentOperator === 'AND_SEGMENT_OPERATOR'
                                ? 'AND'
                                : 'OR'}
                            </span>
                          ) : null}
                          <Link
                            className="mono"
                            to={`/namespaces/${encodeURIComponent(namespace)}/segments/${encodeURIComponent(s)}`}
                          >
                            {s}
                          </Link>
                        </span>
                      ))}
                    </>
                  )}
                  <span aria-hidden="true">→</span>
                  <span className={`badge ${valueOf(rollout) ? 'on' : 'off'}`}>
                    {valueOf(rollout) ? 'true' : 'false'}
                  </span>
                </span>
                {rollout.description ? (
                  <span className="item-sub">{rollout.description}</span>
                ) : null}
              </div>
              <div className="btn-row">
                <button
                  type="button"
                  className="btn small ghost"
                  aria-label={`Move rollout ${index + 1} up`}
                  disabled={readOnly !== undefined || index === 0}
                  onClick={() => void reorder(move(items, index, index - 1))}
                >
                  <Icon name="up" />
                </button>
                <button
                  type="button"
                  className="btn small ghost"
                  aria-label={`Move rollout ${index + 1} down`}
                  disabled={readOnly !== undefined || index === items.length - 1}
                  onClick={() => void reorder(move(items, index, index + 1))}
                >
                  <Icon name="down" />
                </button>
                <button
                  type="button"
                  className="btn small ghost"
                  aria-label={`Edit rollout ${index + 1}`}
                  title={readOnly ?? 'Edit'}
                  disabled={readOnly !== undefined}
                  onClick={() => setEditing(rollout)}
                >
                  <Icon name="edit" />
                </button>
                <button
                  type="button"
                  className="btn small ghost"
                  aria-label={`Delete rollout ${index + 1}`}
                  title={readOnly ?? 'Delete'}
                  disabled={readOnly !== undefined}
                  onClick={() => setRemoving(rollout)}
                >
                  <Icon name="trash" />
                </button>
              </div>
            </>
          )}
        />
      )}
      {editing ? (
        <RolloutDialog
          key={editing === 'new' ? 'new' : editing.id}
          onClose={() => setEditing(undefined)}
          flag={flag}
          namespace={namespace}
          rollout={editing === 'new' ? undefined : editing}
          nextRank={Math.max(0, ...items.map((r) => r.rank)) + 1}
        />
      ) : null}
      <ConfirmDialog
        open={removing !== undefined}
        onOpenChange={(o) => !o && setRemoving(undefined)}
        title="Delete this rollout?"
        confirmLabel="Delete rollout"
        onConfirm={async () => {
          if (!removing) return;
          await rolloutsApi.remove(namespace, flag.key, removing.id);
          await client.invalidateQueries({ queryKey: key });
          toast('Rollout deleted');
        }}
      >
        Entities it applied to fall through to the next rollouts.
      </ConfirmDialog>
    </section>
  );
}

const valueOf = (r: Rollout) => (r.threshold ? r.threshold.value : (r.segment?.value ?? false));

function describeRollout(r: Rollout): string {
  if (r.threshold) return `${r.threshold.percentage}% threshold`;
  return joinSegments(rolloutSegments(r), r.segment?.segmentOperator ?? 'OR_SEGMENT_OPERATOR');
}

function RolloutDialog({
  onClose,
  flag,
  namespace,
  rollout,
  nextRank,
}: {
  onClose: () => void;
  flag: Flag;
  namespace: string;
  rollout?: Rollout;
  nextRank: number;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const segments = useQuery({
    queryKey: ['segments', namespace],
    queryFn: () => segmentsApi.list(namespace),
  });
  const [kind, setKind] = useState<'segment' | 'threshold'>(
    rollout?.threshold ? 'threshold' : rollout ? 'segment' : 'threshold',
  );
  const [selected, setSelected] = useState<string[]>(rollout ? rolloutSegments(rollout) : []);
  const [operator, setOperator] = useState<SegmentOperator>(
    rollout?.segment?.segmentOperator ?? 'OR_SEGMENT_OPERATOR',
  );
  const [percentage, setPercentage] = useState(String(rollout?.threshold?.percentage ?? 50));
  const [value, setValue] = useState(rollout ? valueOf(rollout) : true);
  const [description, setDescription] = useState(rollout?.description ?? '');
  const form = useSubmit({
    '/percentage/': 'percentage',
    '/segment/': 'segments',
    '/rank/': 'form',
  });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const pct = Number(percentage);
    const body: RolloutInput =
      kind === 'threshold'
        ? { description, threshold: { percentage: pct, value } }
        : { description, segment: { segmentKeys: selected, segmentOperator: operator, value } };
    const ok = await form.run(
      () =>
        rollout
          ? rolloutsApi.update(namespace, flag.key, rollout.id, body)
          : rolloutsApi.create(namespace, flag.key, { ...body, rank: nextRank }),
      kind === 'threshold'
        ? {
            percentage:
              percentage.trim() === '' || !Number.isFinite(pct) || pct < 0 || pct > 100
                ? 'Enter a percentage between 0 and 100.'
                : undefined,
          }
        : { segments: selected.length === 0 ? 'Choose at least one segment.' : undefined },
    );
    if (ok) {
      await client.invalidateQueries({ queryKey: ['rollouts', namespace, flag.key] });
      toast(rollout ? 'Rollout saved' : 'Rollout added');
      onClose();
    }
  };

  return (
    <Dialog
      open
      onOpenChange={(o) => !o && onClose()}
      title={rollout ? `Edit rollout ${rollout.rank}` : 'New rollout'}
      wide
    >
      <form className="form" onSubmit={submit} noValidate>
        <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }}>
          <legend className="label">Type</legend>
          <div className="choice-group">
            <label className="choice">
              <input
                type="radio"
                name="kind"
                checked={kind === 'threshold'}
                disabled={rollout !== undefined}
                onChange={() => setKind('threshold')}
              />
              <span>
                Threshold
                <small>A stable percentage of entities, by their id.</small>
              </span>
            </label>
            <label className="choice">
              <input
                type="radio"
                name="kind"
                checked={kind === 'segment'}
                disabled={rollout !== undefined}
                onChange={() => setKind('segment')}
              />
              <span>
                Segment
                <small>Entities whose context matches segments.</small>
              </span>
            </label>
          </div>
          {rollout ? (
            <span className="hint">The type of an existing rollout cannot change.</span>
          ) : null}
        </fieldset>
        {kind === 'threshold' ? (
          <Field
            label="Percentage"
            error={form.errors.percentage}
            hint="0 to 100; an entity stays in or out as the percentage grows."
          >
            {(a) => (
              <span className="inline">
                <input
                  {...a}
                  className="input"
                  style={{ maxWidth: 140 }}
                  type="number"
                  min={0}
                  max={100}
                  step="any"
                  inputMode="decimal"
                  value={percentage}
                  onChange={(e) => setPercentage(e.target.value)}
                />
                %
              </span>
            )}
          </Field>
        ) : (
          <Field label="Segments" error={form.errors.segments}>
            {(a) =>
              (segments.data?.segments.length ?? 0) === 0 && !segments.isPending ? (
                <p className="muted" id={a.id}>
                  This namespace has no segments yet.{' '}
                  <Link to={`/namespaces/${encodeURIComponent(namespace)}/segments`}>
                    Create one
                  </Link>{' '}
                  first.
                </p>
              ) : (
                <SegmentPicker
                  id={a.id}
                  segments={segments.data?.segments ?? []}
                  selected={selected}
                  onChange={setSelected}
                  operator={operator}
                  onOperatorChange={setOperator}
                  error={a['aria-invalid']}
                  describedBy={a['aria-describedby']}
                />
              )
            }
          </Field>
        )}
        <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }}>
          <legend className="label">Value returned</legend>
          <div className="btn-row">
            <label className="inline">
              <input type="radio" name="value" checked={value} onChange={() => setValue(true)} />{' '}
              true
            </label>
            <label className="inline">
              <input type="radio" name="value" checked={!value} onChange={() => setValue(false)} />{' '}
              false
            </label>
          </div>
        </fieldset>
        <Field label="Description">
          {(a) => (
            <input
              {...a}
              className="input"
              value={description}
              onChange={(e) => setDescription(e.target.value)}
            />
          )}
        </Field>
        {form.formError || form.errors.form ? (
          <p className="form-error" role="alert">
            {form.formError ?? form.errors.form}
          </p>
        ) : null}
        <div className="dialog-foot">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={form.busy}>
            {form.busy ? 'Saving…' : rollout ? 'Save rollout' : 'Add rollout'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
