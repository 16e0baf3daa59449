import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import {
  distributions as distApi,
  rules as rulesApi,
  segments as segmentsApi,
} from '../api/endpoints';
import type { Flag, Rule, SegmentOperator } from '../api/types';
import { ConfirmDialog, Dialog } from '../components/dialog';
import { Icon } from '../components/icons';
import { SegmentPicker } from '../components/segment-picker';
import { SortableList } from '../components/sortable-list';
import { useToast } from '../components/toast';
import { EmptyState, ErrorPanel, Field, LoadingRows } from '../components/ui';
import { useSubmit } from '../forms';
import { messageOf } from '../lib/api-error';
import { distributionTotal } from '../lib/distributions';
import { changedOrder, move } from '../lib/reorder';
import { joinSegments, ruleSegments } from '../lib/segments';

const COLORS = [
  '#6366f1',
  '#10b981',
  '#f59e0b',
  '#ef4444',
  '#06b6d4',
  '#a855f7',
  '#84cc16',
  '#ec4899',
];

export function RulesEditor({
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
  const key = ['rules', namespace, flag.key];
  const query = useQuery({ queryKey: key, queryFn: () => rulesApi.list(namespace, flag.key) });
  const [items, setItems] = useState<Rule[]>([]);
  const [editing, setEditing] = useState<Rule | 'new'>();
  const [removing, setRemoving] = useState<Rule>();
  useEffect(() => setItems(query.data?.rules ?? []), [query.data]);

  const reorder = async (next: Rule[]) => {
    const ids = changedOrder(items, next);
    if (!ids) return;
    const before = items;
    setItems(next);
    try {
      await rulesApi.order(namespace, flag.key, ids);
      toast('Rule order saved');
      void client.invalidateQueries({ queryKey: key });
    } catch (err) {
      setItems(before);
      toast(`Could not reorder: ${messageOf(err)}`, 'error');
    }
  };

  const variantKey = (id: string) => flag.variants.find((v) => v.id === id)?.key ?? id;
  const colorOf = (id: string) =>
    COLORS[flag.variants.findIndex((v) => v.id === id) % COLORS.length];

  return (
    <section className="card section" aria-labelledby="rules-h">
      <div className="section-head">
        <div>
          <h2 id="rules-h">Rules</h2>
          <p>Checked from the top; the first rule whose segments match decides the variant.</p>
        </div>
        <button
          type="button"
          className="btn small"
          onClick={() => setEditing('new')}
          disabled={readOnly !== undefined || flag.variants.length === 0}
          title={readOnly ?? (flag.variants.length === 0 ? 'Add a variant first' : undefined)}
        >
          <Icon name="plus" /> Add rule
        </button>
      </div>
      {query.isPending ? (
        <LoadingRows label="Loading rules" />
      ) : query.isError ? (
        <div className="card-body">
          <ErrorPanel error={query.error} retry={() => void query.refetch()} />
        </div>
      ) : items.length === 0 ? (
        <EmptyState icon="segment" title="No rules">
          {flag.variants.length === 0
            ? 'Add a variant first; rules then send segments of your users to variants.'
            : flag.defaultVariant
              ? `Everyone gets the default variant ${flag.defaultVariant.key} while the flag is enabled.`
              : 'Without rules or a default variant, evaluations of this flag return no variant.'}
        </EmptyState>
      ) : (
        <SortableList
          items={items}
          onReorder={(next) => void reorder(next)}
          disabled={readOnly !== undefined}
          label={(r, i) => `rule ${i + 1} (${joinSegments(ruleSegments(r), r.segmentOperator)})`}
          render={(rule, index, handle) => (
            <>
              {handle}
              <span className="rank" aria-label={`Rank ${index + 1}`}>
                {index + 1}
              </span>
              <div className="item-main">
                <span className="item-title">
                  {ruleSegments(rule).map((s, i) => (
                    <span key={s} className="inline">
                      {i > 0 ? (
                        <span className="badge">
                          {rule.segmentOperator === 'AND_SEGMENT_OPERATOR' ? 'AND' : 'OR'}
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
                </span>
                {rule.distributions.length === 0 ? (
                  <span className="item-sub">
                    No distribution: matching entities get no variant.
                  </span>
                ) : (
                  <>
                    <div className="dist-bar" aria-hidden="true">
                      {rule.distributions.map((d) => (
                        <span
                          key={d.id}
                          style={{ width: `${d.rollout}%`, background: colorOf(d.variantId) }}
                        />
                      ))}
                    </div>
                    <span className="dist-legend">
                      {rule.distributions.map((d) => (
                        <span key={d.id}>
                          <i style={{ background: colorOf(d.variantId) }} />
                          {variantKey(d.variantId)} {d.rollout}%
                        </span>
                      ))}
                    </span>
                  </>
                )}
              </div>
              <div className="btn-row">
                <button
                  type="button"
                  className="btn small ghost"
                  aria-label={`Move rule ${index + 1} up`}
                  disabled={readOnly !== undefined || index === 0}
                  onClick={() => void reorder(move(items, index, index - 1))}
                >
                  <Icon name="up" />
                </button>
                <button
                  type="button"
                  className="btn small ghost"
                  aria-label={`Move rule ${index + 1} down`}
                  disabled={readOnly !== undefined || index === items.length - 1}
                  onClick={() => void reorder(move(items, index, index + 1))}
                >
                  <Icon name="down" />
                </button>
                <button
                  type="button"
                  className="btn small ghost"
                  aria-label={`Edit rule ${index + 1}`}
                  title={readOnly ?? 'Edit'}
                  disabled={readOnly !== undefined}
                  onClick={() => setEditing(rule)}
                >
                  <Icon name="edit" />
                </button>
                <button
                  type="button"
                  className="btn small ghost"
                  aria-label={`Delete rule ${index + 1}`}
                  title={readOnly ?? 'Delete'}
                  disabled={readOnly !== undefined}
                  onClick={() => setRemoving(rule)}
                >
                  <Icon name="trash" />
                </button>
              </div>
            </>
          )}
        />
      )}
      {editing ? (
        <RuleDialog
          key={editing === 'new' ? 'new' : editing.id}
          onClose={() => setEditing(undefined)}
          flag={flag}
          namespace={namespace}
          rule={editing === 'new' ? undefined : editing}
          nextRank={items.length + 1}
        />
      ) : null}
      <ConfirmDialog
        open={removing !== undefined}
        onOpenChange={(o) => !o && setRemoving(undefined)}
        title="Delete this rule?"
        confirmLabel="Delete rule"
        onConfirm={async () => {
          if (!removing) return;
          await rulesApi.remove(namespace, flag.key, removing.id);
          await client.invalidateQueries({ queryKey: key });
          toast('Rule deleted');
        }}
      >
        Entities it matched fall through to the next rules, then to the default variant.
      </ConfirmDialog>
    </section>
  );
}

function RuleDialog({
  onClose,
  flag,
  namespace,
  rule,
  nextRank,
}: {
  onClose: () => void;
  flag: Flag;
  namespace: string;
  rule?: Rule;
  nextRank: number;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const segments = useQuery({
    queryKey: ['segments', namespace],
    queryFn: () => segmentsApi.list(namespace),
  });
  const [selected, setSelected] = useState<string[]>(rule ? ruleSegments(rule) : []);
  const [operator, setOperator] = useState<SegmentOperator>(
    rule?.segmentOperator ?? 'OR_SEGMENT_OPERATOR',
  );
  const [percent, setPercent] = useState<Record<string, string>>(() =>
    Object.fromEntries(
      flag.variants.map((v) => {
        const d = rule?.distributions.find((x) => x.variantId === v.id);
        return [v.id, d ? String(d.rollout) : rule ? '' : flag.variants.length === 1 ? '100' : ''];
      }),
    ),
  );
  const form = useSubmit({ '/segment/': 'segments', '/rollout|distribution/': 'distributions' });

  const drafts = flag.variants
    .map((v) => ({ variantId: v.id, text: percent[v.id] ?? '' }))
    .filter((d) => d.text.trim() !== '')
    .map((d) => ({ variantId: d.variantId, rollout: Number(d.text) }));
  const total = distributionTotal(drafts);
  const badRow = drafts.find(
    (d) => !Number.isFinite(d.rollout) || d.rollout < 0 || d.rollout > 100,
  );
  const over = total > 100;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const ok = await form.run(
      async () => {
        const body = { segmentKeys: selected, segmentOperator: operator };
        const saved = rule
          ? await rulesApi.update(namespace, flag.key, rule.id, body)
          : await rulesApi.create(namespace, flag.key, { ...body, rank: nextRank });
        const existing = rule?.distributions ?? [];
        for (const v of flag.variants) {
          const want = drafts.find((d) => d.variantId === v.id);
          const have = existing.find((d) => d.variantId === v.id);
          if (want && want.rollout > 0) {
            if (!have) await distApi.create(namespace, flag.key, saved.id, v.id, want.rollout);
            else if (have.rollout !== want.rollout)
              await distApi.update(namespace, flag.key, saved.id, have.id, v.id, want.rollout);
          } else if (have) {
            await distApi.remove(namespace, flag.key, saved.id, have.id, v.id);
          }
        }
      },
      {
        segments: selected.length === 0 ? 'Choose at least one segment.' : undefined,
        distributions: badRow
          ? 'Each percentage must be between 0 and 100.'
          : over
            ? `The percentages add up to ${total}%: at most 100% can be distributed.`
            : undefined,
      },
    );
    await client.invalidateQueries({ queryKey: ['rules', namespace, flag.key] });
    if (ok) {
      toast(rule ? 'Rule saved' : 'Rule added');
      onClose();
    }
  };

  const split = () => {
    const n = flag.variants.length;
    const base = Math.floor(10000 / n) / 100;
    const rest = Math.round((100 - base * n) * 100) / 100;
    setPercent(
      Object.fromEntries(
        flag.variants.map((v, i) => [
          v.id,
          String(i === 0 ? Math.round((base + rest) * 100) / 100 : base),
        ]),
      ),
    );
  };

  return (
    <Dialog
      open
      onOpenChange={(o) => !o && onClose()}
      title={rule ? `Edit rule ${rule.rank}` : 'New rule'}
      wide
    >
      <form className="form" onSubmit={submit} noValidate>
        <Field label="Segments" error={form.errors.segments} hint="Who this rule applies to.">
          {(a) =>
            segments.isPending ? (
              <LoadingRows rows={2} />
            ) : (segments.data?.segments.length ?? 0) === 0 ? (
              <p className="muted" id={a.id}>
                This namespace has no segments yet.{' '}
                <Link to={`/namespaces/${encodeURIComponent(namespace)}/segments`}>Create one</Link>{' '}
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
        <fieldset
          className="field"
          style={{ border: 0, padding: 0, margin: 0 }}
          aria-describedby={form.errors.distributions ? 'dist-error' : 'dist-hint'}
        >
          <legend className="label">Distribution</legend>
          <span className="hint" id="dist-hint">
            Share of matching entities per variant. Leave a variant empty to give it none; the rest
            of 100% gets no variant.
          </span>
          <div className="stack" style={{ gap: 6, marginTop: 6 }}>
            {flag.variants.map((v) => (
              <label key={v.id} className="kv-row" style={{ gridTemplateColumns: '1fr 120px' }}>
                <span className="mono" style={{ alignSelf: 'center' }}>
                  {v.key}
                </span>
                <span className="inline">
                  <input
                    className="input"
                    type="number"
                    inputMode="decimal"
                    min={0}
                    max={100}
                    step="any"
                    aria-label={`Percentage for ${v.key}`}
                    aria-invalid={over || badRow?.variantId === v.id}
                    value={percent[v.id] ?? ''}
                    onChange={(e) => setPercent((p) => ({ ...p, [v.id]: e.target.value }))}
                  />
                  %
                </span>
              </label>
            ))}
          </div>
          <div className="inline" style={{ justifyContent: 'space-between', marginTop: 6 }}>
            <span>
              Total:{' '}
              <span className={`sum${over ? ' over' : ''}`} aria-live="polite">
                {total}%
              </span>
            </span>
            {flag.variants.length > 1 ? (
              <button type="button" className="btn small" onClick={split}>
                Split evenly
              </button>
            ) : null}
          </div>
          {form.errors.distributions ? (
            <span className="error" id="dist-error" role="alert">
              <Icon name="alert" size={14} style={{ marginTop: 3 }} /> {form.errors.distributions}
            </span>
          ) : null}
        </fieldset>
        {form.formError ? (
          <p className="form-error" role="alert">
            {form.formError}
          </p>
        ) : null}
        <div className="dialog-foot">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={form.busy}>
            {form.busy ? 'Saving…' : rule ? 'Save rule' : 'Add rule'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
