import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { rollouts as rolloutsApi, type RolloutInput } from '../api/endpoints';
import type { Flag, Rollout, SegmentOperator } from '../api/types';
import { FormDialog } from '../components/dialog';
import { ChoiceGroup, TextField } from '../components/form-fields';
import { RankedSection } from '../components/ranked-section';
import { SegmentLinks, SegmentsField } from '../components/segment-fields';
import { useToast } from '../components/toast';
import { Field } from '../components/ui';
import { useSubmit } from '../forms';
import type { FlagSectionProps } from './flag-page';
import { joinSegments, rolloutSegments } from '../lib/segments';

export function RolloutsEditor({ flag, namespace, readOnly }: FlagSectionProps) {
  const fallback = <strong>{flag.enabled ? 'true' : 'false'}</strong>;
  return (
    <RankedSection<Rollout>
      noun="rollout"
      intro={
        <>
          Checked from the top; the first that applies decides the value. Otherwise the flag returns{' '}
          {fallback} (its enabled state).
        </>
      }
      queryKey={['rollouts', namespace, flag.key]}
      list={() => rolloutsApi.list(namespace, flag.key)}
      order={(ids) => rolloutsApi.order(namespace, flag.key, ids)}
      remove={(r) => rolloutsApi.remove(namespace, flag.key, r.id)}
      removal="Entities it applied to fall through to the next rollouts."
      readOnly={readOnly}
      empty={
        <>
          Everyone gets {fallback}. Add a rollout to target a segment or a percentage of entities.
        </>
      }
      describe={describeRollout}
      render={(rollout) => (
        <>
          <span className="item-title">
            {rollout.threshold ? (
              <>
                <span className="badge">Threshold</span> {rollout.threshold.percentage}% of entities
              </>
            ) : (
              <>
                <span className="badge">Segment</span>
                <SegmentLinks
                  namespace={namespace}
                  keys={rolloutSegments(rollout)}
                  operator={rollout.segment?.segmentOperator}
                />
              </>
            )}
            <span aria-hidden="true">→</span>
            <span className={`badge ${valueOf(rollout) ? 'on' : 'off'}`}>
              {valueOf(rollout) ? 'true' : 'false'}
            </span>
          </span>
          {rollout.description ? <span className="item-sub">{rollout.description}</span> : null}
        </>
      )}
      dialog={(rollout, items, onClose) => (
        <RolloutDialog
          onClose={onClose}
          flag={flag}
          namespace={namespace}
          rollout={rollout}
          nextRank={Math.max(0, ...items.map((r) => r.rank)) + 1}
        />
      )}
    />
  );
}

const valueOf = (r: Rollout) => (r.threshold ? r.threshold.value : (r.segment?.value ?? false));

function describeRollout(r: Rollout): string {
  if (r.threshold) return `${r.threshold.percentage}% threshold`;
  return joinSegments(rolloutSegments(r), r.segment?.segmentOperator ?? 'OR_SEGMENT_OPERATOR');
}

const ROLLOUT_KINDS = [
  {
    value: 'threshold',
    label: 'Threshold',
    detail: 'A stable percentage of entities, by their id.',
  },
  { value: 'segment', label: 'Segment', detail: 'Entities whose context matches segments.' },
] as const;

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

  const submit = async () => {
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
    <FormDialog
      onClose={onClose}
      title={rollout ? `Edit rollout ${rollout.rank}` : 'New rollout'}
      wide
      onSubmit={submit}
      form={form}
      error={form.formError ?? form.errors.form}
      submitLabel={rollout ? 'Save rollout' : 'Add rollout'}
    >
      <ChoiceGroup
        legend="Type"
        name="kind"
        value={kind}
        onChange={setKind}
        options={ROLLOUT_KINDS}
        disabled={rollout !== undefined}
        hint={rollout ? 'The type of an existing rollout cannot change.' : undefined}
      />
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
        <SegmentsField
          namespace={namespace}
          error={form.errors.segments}
          selected={selected}
          onChange={setSelected}
          operator={operator}
          onOperatorChange={setOperator}
        />
      )}
      <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }}>
        <legend className="label">Value returned</legend>
        <div className="btn-row">
          <label className="inline">
            <input type="radio" name="value" checked={value} onChange={() => setValue(true)} /> true
          </label>
          <label className="inline">
            <input type="radio" name="value" checked={!value} onChange={() => setValue(false)} />{' '}
            false
          </label>
        </div>
      </fieldset>
      <TextField label="Description" value={description} onChange={setDescription} />
    </FormDialog>
  );
}
