/**
 * The OpenAPI document of the control API: served by a running mock, it names every endpoint
 * the mock answers, real answers validate against it, and so does every example in
 * docs/api.md (request bodies given to curl, answers in ```json blocks and `# {…}` lines).
 */
import { readFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { checkJson } from '../support/fixtures/json-schema.js';
import { test } from '../support/fixtures/test.js';

type Schema = Record<string, unknown>;
interface Operation {
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { content?: { 'application/json'?: { schema: Schema } } }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
}

/** The control API of the test's mock: its port, a GET, and the document it serves. */
interface Api {
  port: number | undefined;
  get(path: string): Promise<{ status: number; body: unknown }>;
  document(): Promise<Document>;
}

const it = test.extend<{ api: Api }>({
  api: async ({ mock }, use) => {
    const port = mock.addresses.control?.port;
    const get = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      return { status: res.status, body: await res.json() };
    };
    const document = async () => {
      const { status, body } = await get('/control/openapi.json');
      expect(status).toBe(200);
      return body as Document;
    };
    await use({ port, get, document });
  },
});

/** The operation a concrete `METHOD /path` reaches, matching `{param}` segments. */
function operationFor(doc: Document, method: string, path: string): Operation | undefined {
  for (const [pattern, methods] of Object.entries(doc.paths)) {
    const regex = new RegExp(`^${pattern.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (regex.test(path)) return methods[method.toLowerCase()];
  }
  return undefined;
}

function answerSchemas(operation: Operation): Schema[] {
  // Only JSON answers have a schema: the live page's event stream and files have none.
  return Object.values(operation.responses).flatMap((r) => {
    const json = r.content?.['application/json'];
    return json ? [json.schema] : [];
  });
}

/** docs/api.md cut at each `### ` heading, with the `METHOD /path` pairs it names. */
function apiSections(): { heading: string; routes: [string, string][]; text: string }[] {
  const text = readFileSync('docs/api.md', 'utf8');
  return text
    .split(/^#{2,3} /m)
    .slice(1)
    .map((section) => {
      const heading = section.split('\n')[0] ?? '';
      const routes = [...heading.matchAll(/`(GET|POST|PUT|DELETE) ([^`]+)`/g)].map(
        (m) => [m[1] ?? '', (m[2] ?? '').replace(/<[^>]+>/g, 'x')] as [string, string],
      );
      return { heading, routes, text: section };
    });
}

describe('GET /control/openapi.json', () => {
  it('names every endpoint the mock answers, with the right methods', async ({ api }) => {
    const doc = await api.document();
    expect(doc.openapi).toBe('3.1.0');
    const { status, body } = await api.get('/no-such-endpoint');
    expect(status).toBe(404);
    const endpoints = (body as { endpoints: string[] }).endpoints;
    expect(endpoints.length).toBeGreaterThan(20);
    for (const line of endpoints) {
      const [method = '', path = ''] = line.split(' ');
      const documented = doc.paths[path.replace(/[:*]([A-Za-z]+)/g, '{$1}')];
      expect(documented?.[method.toLowerCase()], line).toBeDefined();
    }
    const operations = Object.values(doc.paths).flatMap((m) => Object.keys(m));
    expect(operations).toHaveLength(endpoints.length);
  });

  it("describes real answers: an applied fault, the scenarios, a bad fault's problems", async ({
    api,
  }) => {
    const doc = await api.document();
    const post = async (body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${api.port}/control/faults`, {
        method: 'POST',
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const faults = operationFor(doc, 'POST', '/control/faults');
    const fault = { scenario: 'delay', params: { ms: '2s' }, scope: { types: ['LDS'] } };
    expect(checkJson(faults?.requestBody?.content['application/json'].schema ?? {}, fault)).toEqual(
      [],
    );
    const applied = await post(fault);
    expect(applied.status).toBe(201);
    expect(
      checkJson(
        faults?.responses['201']?.content?.['application/json']?.schema ?? {},
        applied.body,
      ),
    ).toEqual([]);
    const bad = await post({ scenario: 'delay', params: { ms: 'soon' } });
    expect(bad.status).toBe(400);
    expect(
      checkJson(faults?.responses['400']?.content?.['application/json']?.schema ?? {}, bad.body),
    ).toEqual([]);
    // The request schema refuses what the server refuses.
    expect(
      checkJson(faults?.requestBody?.content['application/json'].schema ?? {}, {
        scenario: 'delay',
        params: { ms: 'soon' },
      }),
    ).not.toEqual([]);
    const scenarios = await api.get('/control/scenarios');
    const listing = operationFor(doc, 'GET', '/control/scenarios');
    expect(checkJson(answerSchemas(listing ?? { responses: {} })[0] ?? {}, scenarios.body)).toEqual(
      [],
    );
  });

  it('validates every example in docs/api.md', async ({ api }) => {
    const doc = await api.document();
    let checked = 0;
    for (const section of apiSections()) {
      if (section.routes.length === 0) continue;
      const operations = section.routes.map(([method, path]) => {
        const operation = operationFor(doc, method, path);
        expect(
          operation,
          `${section.heading}: ${method} ${path} is not in the document`,
        ).toBeDefined();
        return operation as Operation;
      });
      const answers = operations.flatMap(answerSchemas);
      const blocks = [...section.text.matchAll(/```(\w+)[^\n]*\n([\s\S]*?)```/g)];
      for (const [, lang, code = ''] of blocks) {
        const samples =
          lang === 'json'
            ? [code]
            : [...code.matchAll(/^# (?:\d{3} )?(\{.*\})$/gm)].map((m) => m[1] ?? '');
        // A sample with `…` for more keys or items, or a key `"…"`, shows a part only.
        const partial = (s: string) => /[[{,]\s*…|"…":/.test(s);
        for (const sample of samples.filter((s) => !partial(s))) {
          const value = JSON.parse(sample) as unknown;
          const fits = answers.some((schema) => checkJson(schema, value).length === 0);
          expect(fits, `${section.heading}: ${sample}`).toBe(true);
          checked++;
        }
        if (lang !== 'sh') continue;
        const curls = code.matchAll(
          /curl -s(?: -X (\w+))? localhost:15014([^\s?]+)\S*(?:\s*\\\n\s*)?(?: -d '([^']*)')?/g,
        );
        for (const [, method = 'GET', path = '', body] of curls) {
          const operation = operationFor(doc, method, path);
          expect(operation, `${section.heading}: curl ${method} ${path}`).toBeDefined();
          if (body === undefined) continue;
          const schema = operation?.requestBody?.content['application/json'].schema;
          expect(schema, `${method} ${path} takes a body`).toBeDefined();
          const problems = checkJson(schema ?? {}, JSON.parse(body));
          // A deliberately bad example (the docs show its 400) is refused by the server's
          // deeper checks (Envoy's protos); only good ones must fit the schema.
          const around = section.text.slice(section.text.indexOf(body) - 120);
          if (/^A bad|^# 400/m.test(around.slice(0, around.indexOf('\n```', 130) + 1))) continue;
          expect(problems, `${section.heading}: ${body}`).toEqual([]);
          checked++;
        }
      }
    }
    // 14 examples when this was written; fewer means the parsing above lost some.
    expect(checked).toBeGreaterThanOrEqual(14);
  });
});
