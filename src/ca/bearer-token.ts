/** Istio's `ExtractBearerToken`, with its messages: the token of `authorization: Bearer <t>`. */
export function bearerToken(values: readonly unknown[]): string | { reason: string } {
  if (values.length === 0) return { reason: 'no HTTP authorization header exists' };
  for (const value of values) {
    if (typeof value === 'string' && value.startsWith('Bearer ')) {
      return value.slice('Bearer '.length);
    }
  }
  return { reason: 'no bearer token exists in HTTP authorization header' };
}
