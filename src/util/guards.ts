/** A plain JSON object (not null, not an array): the shape every body and file entry starts as. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
