import { useState } from 'react';
import { fieldOfError, messageOf } from './lib/api-error';
import { keyFromName } from './lib/keys';

export type FieldErrors = Partial<Record<string, string>>;

/** Where the service's refusals of a name and key belong (see fieldOfError). */
export const NAME_AND_KEY_FIELDS = {
  key: 'key',
  name: 'name',
  '/is not unique/': 'key',
  '/invalid characters/': 'key',
};

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

/**
 * A name and the key derived from it as it is typed, until the key is edited by hand.
 * Given an existing thing, its key counts as chosen already.
 */
export function useNameAndKey(initial?: { name: string; key: string }) {
  const [name, setName] = useState(initial?.name ?? '');
  const [key, setKey] = useState(initial?.key ?? '');
  const [keyEdited, setKeyEdited] = useState(initial !== undefined);
  return {
    name,
    key,
    setName: (next: string) => {
      setName(next);
      if (!keyEdited) setKey(keyFromName(next));
    },
    setKey: (next: string) => {
      setKey(next);
      setKeyEdited(true);
    },
    reset: () => {
      setName('');
      setKey('');
      setKeyEdited(false);
    },
  };
}

export type NameAndKey = ReturnType<typeof useNameAndKey>;
