import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { constraints as constraintsApi } from '../api/endpoints';
import type { ComparisonType, Constraint } from '../api/types';
import { ChipsInput } from '../components/chips-input';
import { FormDialog } from '../components/dialog';
import { SelectField, TextField } from '../components/form-fields';
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

  const submit = async () => {
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
    <FormDialog
      onClose={onClose}
      title={constraint ? 'Edit constraint' : 'New constraint'}
      wide
      onSubmit={submit}
      form={form}
      submitLabel={constraint ? 'Save constraint' : 'Add constraint'}
    >
      <div className="row">
        <SelectField
          label="Type"
          error={form.errors.type}
          value={type}
          onChange={(t) => changeType(t as ComparisonType)}
        >
          {COMPARISON_TYPES.map((t) => (
            <option key={t} value={t}>
              {TYPE_LABELS[t]}
            </option>
          ))}
        </SelectField>
        <TextField
          label="Property"
          mono
          error={form.errors.property}
          hint={
            type === 'ENTITY_ID_COMPARISON_TYPE'
              ? 'Compares the entity id itself.'
              : 'A key of the evaluation context.'
          }
          value={property}
          readOnly={type === 'ENTITY_ID_COMPARISON_TYPE'}
          onChange={setProperty}
          placeholder="plan"
        />
        <SelectField
          label="Operator"
          error={form.errors.operator}
          value={operator}
          onChange={setOperator}
        >
          {OPERATORS[type].map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </SelectField>
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
              onChange={(items) => setValue(items.length === 0 ? '' : formatListValue(type, items))}
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
        <TextField
          label="Value"
          mono
          error={form.errors.value}
          inputMode={input === 'number' ? 'decimal' : undefined}
          value={value}
          onChange={setValue}
        />
      )}
      <TextField label="Description" value={description} onChange={setDescription} />
    </FormDialog>
  );
}
