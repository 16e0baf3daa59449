/** A strict reader of the Prometheus text format, so tests check what a scraper would see. */
export interface ParsedSample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

export interface ParsedExposition {
  readonly help: Map<string, string>;
  readonly types: Map<string, string>;
  readonly samples: ParsedSample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$/;

export function parseExposition(text: string): ParsedExposition {
  const help = new Map<string, string>();
  const types = new Map<string, string>();
  const samples: ParsedSample[] = [];
  if (!text.endsWith('\n')) throw new Error('exposition must end with a newline');
  for (const line of text.slice(0, -1).split('\n')) {
    // Blank lines between metric families are allowed (prom-client writes them).
    if (line === '') continue;
    if (line.startsWith('# HELP ')) {
      const rest = line.slice(7);
      const space = rest.indexOf(' ');
      const name = rest.slice(0, space);
      if (help.has(name)) throw new Error(`second HELP for ${name}`);
      help.set(name, unescape(rest.slice(space + 1), false));
    } else if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      if (name === undefined || type === undefined) throw new Error(`bad TYPE line: ${line}`);
      if (types.has(name)) throw new Error(`second TYPE for ${name}`);
      types.set(name, type);
    } else {
      const m = SAMPLE.exec(line);
      if (m === null) throw new Error(`bad sample line: ${JSON.stringify(line)}`);
      const [, name = '', rawLabels, rawValue = ''] = m;
      samples.push({ name, labels: parseLabels(rawLabels ?? ''), value: parseValue(rawValue) });
    }
  }
  return { help, types, samples };
}

function parseValue(raw: string): number {
  if (raw === '+Inf') return Infinity;
  if (raw === '-Inf') return -Infinity;
  // Prometheus parses NaN case-insensitively; prom-client writes "Nan".
  if (raw.toLowerCase() === 'nan') return NaN;
  const n = Number(raw);
  if (raw === '' || Number.isNaN(n)) throw new Error(`bad value ${raw}`);
  return n;
}

function parseLabels(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === '') return out;
  let i = 1;
  const end = raw.length - 1;
  while (i < end) {
    const eq = raw.indexOf('=', i);
    const name = raw.slice(i, eq);
    if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name)) throw new Error(`bad label name ${name}`);
    if (raw[eq + 1] !== '"') throw new Error('label value must be quoted');
    let j = eq + 2;
    let value = '';
    while (raw[j] !== '"') {
      if (j >= end) throw new Error('unterminated label value');
      if (raw[j] === '\\') {
        const next = raw[j + 1];
        value += next === 'n' ? '\n' : next === '\\' ? '\\' : next === '"' ? '"' : bad(next);
        j += 2;
      } else {
        value += raw[j];
        j++;
      }
    }
    if (name in out) throw new Error(`duplicate label ${name}`);
    out[name] = value;
    i = j + 1;
    if (raw[i] === ',') i++;
  }
  return out;
}

function unescape(s: string, quotes: boolean): string {
  return s.replace(/\\(.)/g, (_, c: string) => {
    if (c === 'n') return '\n';
    if (c === '\\') return '\\';
    if (c === '"' && quotes) return '"';
    return bad(c);
  });
}

function bad(c: string | undefined): never {
  throw new Error(`bad escape \\${c ?? ''}`);
}

export function samplesOf(parsed: ParsedExposition, name: string): ParsedSample[] {
  return parsed.samples.filter((s) => s.name === name);
}
