/** Keys of flags, segments and namespaces: the API allows letters, digits, '-', '_' and ','. */
export const KEY_PATTERN = /^[-_,A-Za-z0-9]+$/;

/** A key suggested from a name as it is typed: "New checkout!" -> "new-checkout". */
export function keyFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
}

export function keyError(key: string): string | undefined {
  if (key === '') return 'Enter a key.';
  if (!KEY_PATTERN.test(key)) return 'Use letters, digits, "-", "_" or "," only.';
  return undefined;
}
