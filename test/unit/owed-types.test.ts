import { describe, expect, test } from 'vitest';
import { OwedTypes } from '../../src/protocol/owed-types.js';
import { CLUSTER_TYPE, ENDPOINT_TYPE, LISTENER_TYPE, ROUTE_TYPE } from '../../src/xds/type-urls.js';

const OTHER = 'type.googleapis.com/example.Other';
const LATER = 'type.googleapis.com/example.Later';

describe('OwedTypes', () => {
  test('answers in ADS order, then other types in the order they were owed', () => {
    const owed = new OwedTypes();
    expect(owed.isEmpty()).toBe(true);
    expect(owed.first(() => true)).toBeUndefined();
    for (const typeUrl of [LATER, ROUTE_TYPE, OTHER, LISTENER_TYPE, CLUSTER_TYPE])
      owed.add(typeUrl);
    owed.add(CLUSTER_TYPE);
    const order: string[] = [];
    for (let next = owed.first(() => true); next; next = owed.first(() => true)) {
      order.push(next);
      owed.delete(next);
    }
    expect(order).toEqual([CLUSTER_TYPE, LISTENER_TYPE, ROUTE_TYPE, LATER, OTHER]);
    expect(owed.isEmpty()).toBe(true);
  });

  test('skips what is not allowed, and tells what it holds', () => {
    const owed = new OwedTypes();
    owed.add(ENDPOINT_TYPE);
    owed.add(LISTENER_TYPE);
    owed.add(OTHER);
    expect(owed.first((t) => t !== ENDPOINT_TYPE)).toBe(LISTENER_TYPE);
    expect(owed.first((t) => t === OTHER)).toBe(OTHER);
    expect(owed.first(() => false)).toBeUndefined();
    expect([ENDPOINT_TYPE, CLUSTER_TYPE, OTHER, LATER].map((t) => owed.has(t))).toEqual([
      true,
      false,
      true,
      false,
    ]);
    owed.delete(OTHER);
    owed.delete(ENDPOINT_TYPE);
    owed.delete(LISTENER_TYPE);
    expect(owed.isEmpty()).toBe(true);
  });
});
