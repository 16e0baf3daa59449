import { useParams } from 'react-router';

const LAST = 'vexil.namespace';

export function useNamespace(): string {
  const { ns } = useParams();
  return ns ?? 'default';
}

export function rememberNamespace(key: string): void {
  try {
    localStorage.setItem(LAST, key);
  } catch {
    // Storage disabled: the dashboard starts in "default" next time.
  }
}

export function lastNamespace(): string | undefined {
  try {
    return localStorage.getItem(LAST) ?? undefined;
  } catch {
    return undefined;
  }
}
