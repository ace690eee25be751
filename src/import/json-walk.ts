/** Small helpers for walking Envoy resources as JSON, keeping the path of what they visit. */
import { isObject } from '../util/guards.js';

export type Json = Record<string, unknown>;

/**
 * Calls `visit` on every object inside `value` (itself included), parents before children,
 * with its path. The children are read after `visit` returns, so `visit` may change them.
 */
export function eachObject(
  value: unknown,
  path: string,
  visit: (obj: Json, path: string) => void,
): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => eachObject(item, `${path}[${i}]`, visit));
    return;
  }
  if (!isObject(value)) return;
  visit(value, path);
  for (const [key, child] of Object.entries(value)) eachObject(child, `${path}.${key}`, visit);
}

/** `obj[key]` when it is an object, else undefined. */
export function child(obj: Json, key: string): Json | undefined {
  const value = obj[key];
  return isObject(value) ? value : undefined;
}

export interface HostPort {
  address: string;
  port: number;
}

/** `127.0.0.1:8080`, `[::1]:8080` → `{ address, port }`; undefined when it is not that. */
export function parseHostPort(text: string): HostPort | undefined {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(text.trim());
  if (!m) return undefined;
  const port = Number(m[2]);
  return port <= 65535 ? { address: m[1] as string, port } : undefined;
}

export function formatHostPort({ address, port }: HostPort): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}
