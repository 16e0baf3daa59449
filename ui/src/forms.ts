import { useState } from 'react';
import { fieldOfError, messageOf } from './lib/api-error';

export type FieldErrors = Partial<Record<string, string>>;

/**
 * Runs a form's save and places the service's refusal beside the field it concerns (per
 * `fields`, see fieldOfError), or above the buttons when it concerns none.
 */
export function useSubmit(fields: Readonly<Record<string, string>>) {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const run = async (action: () => Promise<unknown>, local: FieldErrors = {}): Promise<boolean> => {
    const localErrors = Object.fromEntries(Object.entries(local).filter(([, v]) => v));
    setErrors(localErrors);
    setFormError(undefined);
    if (Object.keys(localErrors).length > 0) return false;
    setBusy(true);
    try {
      await action();
      return true;
    } catch (err) {
      const message = messageOf(err);
      const field = fieldOfError(message, fields);
      if (field) setErrors({ [field]: message });
      else setFormError(message);
      return false;
    } finally {
      setBusy(false);
    }
  };

  const reset = () => {
    setErrors({});
    setFormError(undefined);
  };

  return { errors, formError, busy, run, reset, setErrors };
}
