/**
 * A small JSON Schema checker for the subset the control API's OpenAPI document uses (type,
 * properties, required, additionalProperties, items, minItems, enum, const, oneOf, minimum,
 * maximum, minLength, pattern). A keyword it does not know fails loudly, so the subset
 * cannot grow unnoticed. Returns every problem with its field path.
 */
type Schema = Record<string, unknown>;

const KNOWN = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'enum',
  'const',
  'oneOf',
  'minimum',
  'maximum',
  'minLength',
  'pattern',
  'description',
  'default',
  'x-enum-descriptions',
]);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const join = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

export function checkJson(schema: Schema, value: unknown, path = ''): string[] {
  for (const key of Object.keys(schema)) {
    if (!KNOWN.has(key)) throw new Error(`json-schema.ts does not know the keyword "${key}"`);
  }
  const at = (message: string) => [`${path || '(root)'}: ${message}`];
  if (schema.oneOf) {
    const matches = (schema.oneOf as Schema[]).filter(
      (s) => checkJson(s, value, path).length === 0,
    );
    if (matches.length !== 1)
      return at(`matches ${matches.length} of the oneOf alternatives, not 1`);
  }
  if ('const' in schema && value !== schema.const)
    return at(`expected ${JSON.stringify(schema.const)}`);
  if (schema.enum && !(schema.enum as unknown[]).includes(value)) return at(`not in the enum`);
  const type = typeOf(value);
  if (schema.type && schema.type !== type && !(schema.type === 'number' && type === 'integer')) {
    return at(`expected ${JSON.stringify(schema.type)}, found ${type}`);
  }
  const problems: string[] = [];
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      problems.push(...at('below minimum'));
    if (typeof schema.maximum === 'number' && value > schema.maximum)
      problems.push(...at('above maximum'));
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength)
      problems.push(...at('too short'));
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value))
      problems.push(...at('does not match the pattern'));
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      problems.push(...at('too few items'));
    if (schema.items)
      value.forEach((item, i) =>
        problems.push(...checkJson(schema.items as Schema, item, join(path, i))),
      );
  }
  if (type === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) {
      if (!(key in object)) problems.push(...at(`missing required field "${key}"`));
    }
    for (const [key, item] of Object.entries(object)) {
      const property = properties[key];
      if (property) problems.push(...checkJson(property, item, join(path, key)));
      else if (schema.additionalProperties === false)
        problems.push(`${join(path, key)}: unknown field`);
      else if (typeof schema.additionalProperties === 'object')
        problems.push(...checkJson(schema.additionalProperties as Schema, item, join(path, key)));
    }
  }
  return problems;
}
