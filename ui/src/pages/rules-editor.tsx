import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { distributions as distApi, rules as rulesApi } from '../api/endpoints';
import type { Flag, Rule, SegmentOperator } from '../api/types';
import { FormDialog } from '../components/dialog';

import { Icon } from '../components/icons';
import { RankedSection } from '../components/ranked-section';
import { SegmentLinks, SegmentsField } from '../components/segment-fields';
import { useToast } from '../components/toast';
import { useSubmit } from '../forms';
import type { FlagSectionProps } from './flag-page';
import { distributionTotal } from '../lib/distributions';
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

export function RulesEditor({ flag, namespace, readOnly }: FlagSectionProps) {
  const variantKey = (id: string) => flag.variants.find((v) => v.id === id)?.key ?? id;
  const colorOf = (id: string) =>
    COLORS[flag.variants.findIndex((v) => v.id === id) % COLORS.length];
  return (
    <RankedSection<Rule>
      noun="rule"
      intro="Checked from the top; the first rule whose segments match decides the variant."
      queryKey={['rules', namespace, flag.key]}
      list={() => rulesApi.list(namespace, flag.key)}
      order={(ids) => rulesApi.order(namespace, flag.key, ids)}
      remove={(r) => rulesApi.remove(namespace, flag.key, r.id)}
      removal="Entities it matched fall through to the next rules, then to the default variant."
      readOnly={readOnly}
      addBlocked={flag.variants.length === 0 ? 'Add a variant first' : undefined}
      empty={
        flag.variants.length === 0
          ? 'Add a variant first; rules then send segments of your users to variants.'
          : flag.defaultVariant
            ? `Everyone gets the default variant ${flag.defaultVariant.key} while the flag is enabled.`
            : 'Without rules or a default variant, evaluations of this flag return no variant.'
      }
      describe={(r) => joinSegments(ruleSegments(r), r.segmentOperator)}
      render={(rule) => (
        <>
          <span className="item-title">
            <SegmentLinks
              namespace={namespace}
              keys={ruleSegments(rule)}
              operator={rule.segmentOperator}
            />
          </span>
          {rule.distributions.length === 0 ? (
            <span className="item-sub">No distribution: matching entities get no variant.</span>
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
        </>
      )}
      dialog={(rule, items, onClose) => (
        <RuleDialog
          onClose={onClose}
          flag={flag}
          namespace={namespace}
          rule={rule}
          nextRank={items.length + 1}
        />
      )}
    />
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

  const submit = async () => {
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
    <FormDialog
      onClose={onClose}
      title={rule ? `Edit rule ${rule.rank}` : 'New rule'}
      wide
      onSubmit={submit}
      form={form}
      submitLabel={rule ? 'Save rule' : 'Add rule'}
    >
      <SegmentsField
        namespace={namespace}
        error={form.errors.segments}
        hint="Who this rule applies to."
        selected={selected}
        onChange={setSelected}
        operator={operator}
        onOperatorChange={setOperator}
      />
      <fieldset
        className="field"
        style={{ border: 0, padding: 0, margin: 0 }}
        aria-describedby={form.errors.distributions ? 'dist-error' : 'dist-hint'}
      >
        <legend className="label">Distribution</legend>
        <span className="hint" id="dist-hint">
          Share of matching entities per variant. Leave a variant empty to give it none; the rest of
          100% gets no variant.
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
    </FormDialog>
  );
}
