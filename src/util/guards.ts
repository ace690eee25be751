/** A plain JSON object (not null, not an array): the shape every body and file entry starts as. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The entries of a JSON list that are objects; anything else reads as an empty list. */
export function objectsIn(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** A JSON object, or an empty one when the value is anything else. */
export function objectOr(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}
