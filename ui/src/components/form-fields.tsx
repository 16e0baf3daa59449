import type { InputHTMLAttributes, ReactNode } from 'react';
import { Field } from './ui';
import type { FieldErrors, NameAndKey } from '../forms';

/** A form checked by the dashboard itself (not the browser), its submission handled in place. */
export function Form({
  className = 'form',
  onSubmit,
  children,
}: {
  className?: string;
  onSubmit: () => Promise<void>;
  children: ReactNode;
}) {
  return (
    <form
      className={className}
      onSubmit={(event) => {
        event.preventDefault();
        void onSubmit();
      }}
      noValidate
    >
      {children}
    </form>
  );
}

/** A refusal that concerns no single field, shown above the form's buttons. */
export function FormError({ message }: { message?: string }) {
  return message ? (
    <p className="form-error" role="alert">
      {message}
    </p>
  ) : null;
}

/** The end of a form in a dialog: its error, then Cancel and the submit button. */
export function DialogActions({
  error,
  busy,
  submitLabel,
  busyLabel = 'Saving…',
  onCancel,
}: {
  error?: string;
  busy: boolean;
  submitLabel: string;
  busyLabel?: string;
  onCancel: () => void;
}) {
  return (
    <>
      <FormError message={error} />
      <div className="dialog-foot">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn primary" disabled={busy}>
          {busy ? busyLabel : submitLabel}
        </button>
      </div>
    </>
  );
}

/** The end of a settings form on a page: its error, and Save while there is something to save. */
export function SaveBar({
  error,
  busy,
  dirty,
  readOnly,
}: {
  error?: string;
  busy: boolean;
  dirty: boolean;
  /** Why the configuration cannot change, when it cannot. */
  readOnly?: string;
}) {
  return (
    <>
      <FormError message={error} />
      <div className="btn-row">
        <button
          type="submit"
          className="btn primary"
          disabled={!dirty || busy || readOnly !== undefined}
          title={readOnly}
        >
          {busy ? 'Saving…' : 'Save'}
        </button>
        {dirty ? <span className="muted">Unsaved changes</span> : null}
      </div>
    </>
  );
}

type TextFieldProps = {
  label: string;
  hint?: ReactNode;
  error?: string;
  value: string;
  onChange: (value: string) => void;
  /** A textarea rather than a one-line input. */
  multiline?: boolean;
  /** Keys, ids and values read better in the monospaced font. */
  mono?: boolean;
} & Pick<
  InputHTMLAttributes<HTMLInputElement>,
  'autoFocus' | 'disabled' | 'readOnly' | 'placeholder' | 'inputMode' | 'type'
>;

/** A labelled text input (or textarea) holding a string. */
export function TextField({
  label,
  hint,
  error,
  value,
  onChange,
  multiline,
  mono,
  type,
  ...rest
}: TextFieldProps) {
  const className = mono ? 'input mono' : 'input';
  return (
    <Field label={label} hint={hint} error={error}>
      {(a) =>
        multiline ? (
          <textarea
            {...a}
            {...rest}
            className={className}
            value={value}
            onChange={(e) => onChange(e.target.value)}
          />
        ) : (
          <input
            {...a}
            {...rest}
            className={className}
            type={type}
            value={value}
            onChange={(e) => onChange(e.target.value)}
          />
        )
      }
    </Field>
  );
}

/** The options of a select choosing a namespace, after a first one meaning none (`none`). */
export function NamespaceOptions({
  none,
  namespaces,
}: {
  none: string;
  namespaces: readonly { key: string; name: string }[];
}) {
  return (
    <>
      <option value="">{none}</option>
      {namespaces.map((n) => (
        <option key={n.key} value={n.key}>
          {n.name} ({n.key})
        </option>
      ))}
    </>
  );
}

/** A labelled select; the options are its children. */
export function SelectField({
  label,
  hint,
  error,
  value,
  onChange,
  disabled,
  children,
}: {
  label: string;
  hint?: ReactNode;
  error?: string;
  value: string;
  onChange: (value: string) => void;
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <Field label={label} hint={hint} error={error}>
      {(a) => (
        <select
          {...a}
          className="input"
          value={value}
          disabled={disabled}
          onChange={(e) => onChange(e.target.value)}
        >
          {children}
        </select>
      )}
    </Field>
  );
}

/** The Name field, and the Key field that follows it until edited (see useNameAndKey). */
export function NameAndKeyFields({
  names,
  errors,
  keyHint,
  keyLocked,
}: {
  names: NameAndKey;
  errors: FieldErrors;
  keyHint: string;
  /** An existing thing's key cannot change. */
  keyLocked?: boolean;
}) {
  return (
    <>
      <TextField
        label="Name"
        error={errors.name}
        autoFocus
        value={names.name}
        onChange={names.setName}
      />
      <TextField
        label="Key"
        mono
        error={errors.key}
        hint={keyHint}
        readOnly={keyLocked}
        value={names.key}
        onChange={names.setKey}
      />
    </>
  );
}

/** Radio buttons choosing one of a few options, each with a line saying what it means. */
export function ChoiceGroup<T extends string>({
  legend,
  name,
  value,
  onChange,
  options,
  disabled,
  hint,
}: {
  legend: string;
  name: string;
  value: T;
  onChange: (value: T) => void;
  options: readonly { value: T; label: ReactNode; detail: string }[];
  disabled?: boolean;
  hint?: string;
}) {
  return (
    <fieldset className="field" style={{ border: 0, padding: 0, margin: 0 }}>
      <legend className="label">{legend}</legend>
      <div className="choice-group">
        {options.map((o) => (
          <label key={o.value} className="choice">
            <input
              type="radio"
              name={name}
              checked={value === o.value}
              disabled={disabled}
              onChange={() => onChange(o.value)}
            />
            <span>
              {o.label}
              <small>{o.detail}</small>
            </span>
          </label>
        ))}
      </div>
      {hint ? <span className="hint">{hint}</span> : null}
    </fieldset>
  );
}
