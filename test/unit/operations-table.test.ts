/**
 * The table of control operations is the one definition everything else derives from: this
 * walks it and checks that each operation has its route, its OpenAPI entry, its method on
 * both control clients, and, where it declares them, its CLI verb, its timeline step and
 * its button on the page.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../src/api/operation.js';
import { operationMethods } from '../../src/api/methods.js';
import { OPERATIONS } from '../../src/api/table.js';
import type { OperationTarget } from '../../src/api/target.js';
import { parseTimeline } from '../../src/timelines/timeline.js';
import { CONTROL_VERBS } from '../../src/cli/client/control-verbs.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { openApiDocument, openApiPath } from '../../src/control/openapi.js';
import { allRoutes } from '../../src/control/routes.js';
import type { RouteTargets } from '../../src/control/target.js';
import { BUTTON_LABELS } from '../../ui/src/buttons.js';
import { MESSAGES } from '../../ui/src/messages.js';

const operations = OPERATIONS as readonly Operation[];
/** Building the routes reads nothing of their targets. */
const routes = allRoutes({
  operations: {} as OperationTarget,
  ui: { ui: {} },
} as RouteTargets);
const openApi = openApiDocument(routes) as {
  paths: Record<string, Record<string, { operationId: string; parameters?: { name: string }[] }>>;
};

describe('the table of control operations', () => {
  it('lists every file of src/api/ops, each once, with a unique name and route', () => {
    const files = readdirSync(new URL('../../src/api/ops/', import.meta.url)).filter((f) =>
      f.endsWith('.ts'),
    );
    expect(operations).toHaveLength(files.length);
    expect(new Set(operations.map((op) => op.name)).size).toBe(operations.length);
    expect(new Set(operations.map((op) => `${op.method} ${op.path}`)).size).toBe(operations.length);
  });

  it.each(operations.map((op) => [op.name, op] as const))('%s has a route', (_, op) => {
    const route = routes.find((r) => r.method === op.method && r.path === op.path);
    expect(route?.operation).toBe(op.name);
    expect(route?.summary).toBe(op.summary);
  });

  it.each(operations.map((op) => [op.name, op] as const))(
    '%s has an OpenAPI entry named after it, with every field documented',
    (_, op) => {
      const entry = openApi.paths[openApiPath(op.path)]?.[op.method.toLowerCase()];
      expect(entry?.operationId).toBe(op.name);
      const documented = new Set((entry?.parameters ?? []).map((p) => p.name));
      for (const field of Object.keys(op.input)) {
        if (op.method === 'GET' || op.path.includes(`:${field}`))
          expect(documented).toContain(field);
      }
    },
  );

  it('has a method of the same name on both control clients', () => {
    const methods = operationMethods(() => Promise.resolve(undefined));
    for (const op of operations)
      expect(typeof methods[op.name as keyof typeof methods]).toBe('function');
  });

  it("names a path segment's field as a required string, and takes JSON only in a body", () => {
    for (const op of operations) {
      for (const [, name] of op.path.matchAll(/:([A-Za-z]+)/g)) {
        expect(op.input[name ?? '']).toMatchObject({ type: 'string', required: true });
      }
      if (op.method === 'GET') {
        expect(Object.values(op.input).filter((field) => field.type === 'json')).toEqual([]);
      }
    }
  });

  it('has a CLI verb for each operation that declares one', () => {
    const declared = operations.filter((op) => op.cli);
    expect(declared.map((op) => op.name)).toEqual(expect.arrayContaining(['push', 'disconnect']));
    for (const op of declared) {
      const [first = '', second] = op.cli?.verb ?? [op.name];
      expect(COMMANDS[first], `mock-istiod ${first}`).toBe(CONTROL_VERBS[first]);
      expect(CONTROL_VERBS[first]?.summary).toContain(
        second === undefined ? op.cli?.summary : second,
      );
    }
  });

  it('has the operations a client in any language needs over HTTP', () => {
    const names = operations.map((op) => op.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'healthz',
        'ready',
        'state',
        'waitForAck',
        'journal',
        'mintToken',
        'issueCertificate',
      ]),
    );
    const cliVerbs = operations.map((op) => (op.cli?.verb ?? (op.cli ? [op.name] : [])).join(' '));
    expect(cliVerbs).toEqual(expect.arrayContaining(['wait-for-ack', 'state']));
  });

  it('answers only the probes without the token, and documents no 401 for them', () => {
    const open = operations.filter((op) => op.public).map((op) => op.name);
    expect(open.sort()).toEqual(['healthz', 'ready']);
    for (const op of operations) {
      const route = routes.find((r) => r.operation === op.name);
      expect(route?.access ?? 'token', op.name).toBe(op.public ? 'public' : 'token');
      const entry = openApi.paths[openApiPath(op.path)]?.[op.method.toLowerCase()] as unknown as {
        responses: Record<string, unknown>;
      };
      expect('401' in entry.responses, op.name).toBe(!op.public);
    }
  });

  it("documents waitForAck's timeout (408) and a close while it waits (503)", () => {
    const entry = openApi.paths['/control/wait-for-ack']?.get as unknown as {
      responses: Record<string, { content: unknown }>;
    };
    expect(Object.keys(entry.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '408', '503']),
    );
  });

  it('names, for each operation that waits, a duration field of its input', () => {
    const waiting = operations.filter((op) => op.waits);
    expect(waiting.map((op) => op.name).sort()).toEqual(['journal', 'waitForAck', 'waitForFault']);
    for (const op of waiting) {
      expect(op.input[op.waits?.field ?? '']).toMatchObject({ type: 'duration' });
    }
  });

  it('lets a timeline step run each operation that allows it, and no other', () => {
    for (const op of operations) {
      const parsed = parseTimeline(`steps:\n  - at: 0s\n    ${op.name}: true\n`);
      expect(parsed.ok, op.name).toBe(op.timeline === true);
    }
  });

  it('gives each operation with a button its label on the page, in both languages', () => {
    const buttons = operations.filter((op) => op.button).map((op) => op.name);
    expect(Object.keys(BUTTON_LABELS).sort()).toEqual([...buttons].sort());
    for (const label of Object.values(BUTTON_LABELS)) {
      expect(MESSAGES.en[label]).toBeTruthy();
      expect(MESSAGES.ko[label]).toBeTruthy();
    }
  });
});
