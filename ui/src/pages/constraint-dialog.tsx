import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { constraints as constraintsApi } from '../api/endpoints';
import type { ComparisonType, Constraint } from '../api/types';
import { ChipsInput } from '../components/chips-input';
import { Dialog } from '../components/dialog';
import { useToast } from '../components/toast';
import { Field } from '../components/ui';
import { useSubmit } from '../forms';
import {
  COMPARISON_TYPES,
  formatListValue,
  OPERATORS,
  operatorForType,
  parseListValue,
  TYPE_LABELS,
  validateConstraint,
  valueInput,
} from '../lib/constraints';
import { fromLocalInput, toLocalInput } from '../lib/datetime';

const FIELDS = {
  property: 'property',
  operator: 'operator',
  value: 'value',
  '/constraint type/': 'type',
  '/operator/': 'operator',
  '/entityId/': 'property',
  '/value|parsing|array/i': 'value',
};

export function ConstraintDialog({
  onClose,
  namespace,
  segmentKey,
  constraint,
}: {
  onClose: () => void;
  namespace: string;
  segmentKey: string;
  constraint?: Constraint;
}) {
  const client = useQueryClient();
  const toast = useToast();
  const [type, setType] = useState<ComparisonType>(constraint?.type ?? 'STRING_COMPARISON_TYPE');
  const [property, setProperty] = useState(constraint?.property ?? '');
  const [operator, setOperator] = useState(constraint?.operator ?? 'eq');
  const [value, setValue] = useState(constraint?.value ?? '');
  const [description, setDescription] = useState(constraint?.description ?? '');
  // Datetimes can be typed as text too, for values the picker cannot hold (seconds, zones).
  const [rawDate, setRawDate] = useState(false);
  const form = useSubmit(FIELDS);
  const input = valueInput(type, operator);

  const changeType = (next: ComparisonType) => {
    setType(next);
    setOperator(operatorForType(next, operator));
    if (next === 'ENTITY_ID_COMPARISON_TYPE') setProperty('entityId');
    if (next !== type) setValue('');
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body = {
      type,
      property: property.trim(),
      operator,
      value: input === 'none' ? '' : value.trim(),
      description,
    };
    const ok = await form.run(
      () =>
        constraint
          ? constraintsApi.update(namespace, segmentKey, constraint.id, body)
          : constraintsApi.create(namespace, segmentKey, body),
      validateConstraint(body),
    );
    if (ok) {
      await client.invalidateQueries({ queryKey: ['segment', namespace, segmentKey] });
      void client.invalidateQueries({ queryKey: ['segments', namespace] });
      toast(constraint ? 'Constraint saved' : 'Constraint added');
      onClose();
    }
  };

  return (
    <Dialog
      open
      onOpenChange={(o) => !o && onClose()}
      title={constraint ? 'Edit constraint' : 'New constraint'}
      wide
    >
      <form className="form" onSubmit={submit} noValidate>
        <div className="row">
          <Field label="Type" error={form.errors.type}>
            {(a) => (
              <select
                {...a}
                className="input"
                value={type}
                onChange={(e) => changeType(e.target.value as ComparisonType)}
              >
                {COMPARISON_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {TYPE_LABELS[t]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field
            label="Property"
            error={form.errors.property}
            hint={
              type === 'ENTITY_ID_COMPARISON_TYPE'
                ? 'Compares the entity id itself.'
                : 'A key of the evaluation context.'
            }
          >
            {(a) => (
              <input
                {...a}
                className="input mono"
                value={property}
                readOnly={type === 'ENTITY_ID_COMPARISON_TYPE'}
                onChange={(e) => setProperty(e.target.value)}
                placeholder="plan"
              />
            )}
          </Field>
          <Field label="Operator" error={form.errors.operator}>
            {(a) => (
              <select
                {...a}
                className="input"
                value={operator}
                onChange={(e) => setOperator(e.target.value)}
              >
                {OPERATORS[type].map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        {input === 'none' ? null : input === 'list' ? (
          <Field
            label="Values"
            error={form.errors.value}
            hint={`Up to 100 ${type === 'NUMBER_COMPARISON_TYPE' ? 'numbers' : 'values'}. Enter or comma adds one.`}
          >
            {(a) => (
              <ChipsInput
                id={a.id}
                items={parseListValue(value)}
                onChange={(items) =>
                  setValue(items.length === 0 ? '' : formatListValue(type, items))
                }
                invalid={a['aria-invalid']}
                describedBy={a['aria-describedby']}
              />
            )}
          </Field>
        ) : input === 'datetime' ? (
          <Field
            label="Date and time"
            error={form.errors.value}
            hint={
              <>
                {rawDate
                  ? 'RFC 3339 (2024-05-01T10:00:00Z) or a date (2024-05-01).'
                  : `In your time zone; stored in UTC${value ? ` as ${value}` : ''}.`}{' '}
                <button
                  type="button"
                  className="btn ghost small"
                  onClick={() => setRawDate(!rawDate)}
                >
                  {rawDate ? 'Use the picker' : 'Type it instead'}
                </button>
              </>
            }
          >
            {(a) =>
              rawDate ? (
                <input
                  {...a}
                  className="input mono"
                  value={value}
                  onChange={(e) => setValue(e.target.value)}
                  placeholder="2024-05-01T10:00:00Z"
                />
              ) : (
                <input
                  {...a}
                  className="input"
                  type="datetime-local"
                  value={toLocalInput(value)}
                  onChange={(e) => setValue(fromLocalInput(e.target.value))}
                />
              )
            }
          </Field>
        ) : (
          <Field label="Value" error={form.errors.value}>
            {(a) => (
              <input
                {...a}
                className="input mono"
                inputMode={input === 'number' ? 'decimal' : undefined}
                value={value}
                onChange={(e) => setValue(e.target.value)}
              />
            )}
          </Field>
        )}
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
            {form.busy ? 'Saving…' : constraint ? 'Save constraint' : 'Add constraint'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
