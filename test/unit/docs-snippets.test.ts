/**
 * The pieces of the docs test (test/docs/): reading blocks and commands from Markdown, what
 * it runs, the ports it rewrites, and the shape checks of documented output.
 */
import { describe, expect, it } from 'vitest';
import { notRunnable, rewritePorts, startsServer } from '../docs/commands.js';
import { extractBlocks, isNoRun, splitCommands } from '../docs/markdown.js';
import { checkColumns, checkJson, checkText, parseDocJson } from '../docs/shape.js';

const FENCE = '```';

describe('extractBlocks', () => {
  it('finds each block with its line, language and flags, and the block right after it', () => {
    const md = [
      '# Title', // 1
      '',
      `${FENCE}sh`, // 3
      'curl -s localhost:15014/',
      FENCE,
      '',
      `${FENCE}json`, // 7
      '{ "a": 1 }',
      FENCE,
      'Some prose.',
      `  ${FENCE}ts no-run`, // 11
      '  afterEach(() => {});',
      `  ${FENCE}`,
    ].join('\n');
    const [sh, json, ts] = extractBlocks('x.md', md);
    expect(sh).toMatchObject({ line: 3, lang: 'sh', flags: [], code: 'curl -s localhost:15014/' });
    expect(sh?.next).toBe(json);
    expect(json?.next).toBeUndefined(); // prose between
    expect(ts).toMatchObject({ line: 11, lang: 'ts', code: 'afterEach(() => {});' });
    expect(ts && isNoRun(ts)).toBe(true);
  });

  it('names the line of a block that is never closed', () => {
    expect(() => extractBlocks('x.md', `a\n${FENCE}sh\nls`)).toThrow(
      'x.md:2: code block is never closed',
    );
  });
});

describe('splitCommands', () => {
  it('joins continued and quoted lines, and takes comments right below a command as its output', () => {
    const md = [
      `${FENCE}sh`, // 1
      '# explains the next command',
      'curl -s -X POST localhost:15014/control/reset',
      '# {"removedFaults":0}',
      '',
      'curl -s -X PUT localhost:15014/control/resources -d \'{"resources":[',
      '  {"name":"a # not a comment"}',
      "]}'",
      'mock-istiod bootstrap \\',
      '  --validate   # a trailing remark',
      FENCE,
    ].join('\n');
    const [block] = extractBlocks('x.md', md);
    const commands = splitCommands(block!);
    expect(commands.map((c) => [c.line, c.output])).toEqual([
      [3, ['{"removedFaults":0}']],
      [6, []],
      [9, []],
    ]);
    expect(commands[1]?.text.split('\n')).toHaveLength(3);
    expect(commands[2]?.text).toContain('--validate');
  });
});

describe('what the docs test runs', () => {
  it('runs curl, jq, grep and the CLI, and refuses what changes the checkout or runs for minutes', () => {
    expect(notRunnable("curl -s 'localhost:15014/debug/syncz' | jq '.[0]'")).toBeUndefined();
    expect(notRunnable('POD_NAME=a INSTANCE_IP=1 mock-istiod bootstrap | grep ID')).toBeUndefined();
    expect(notRunnable('curl -d \'{"a":"x|y && z"}\' u   # npm ci')).toBeUndefined();
    expect(notRunnable('npm ci && npm start')).toContain('does not run `npm ci`');
    expect(notRunnable('.venv/bin/envoy -c x.yaml')).toContain('mark the block `no-run`');
    expect(notRunnable('npm run demo -- --fast')).toContain('`npm run demo');
  });

  it('starts mocks in the background for npm start and serve', () => {
    expect(startsServer('npm start -- --tls')).toBe(true);
    expect(startsServer('mock-istiod serve --fault withhold')).toBe(true);
    expect(startsServer('mock-istiod proxy-status')).toBe(false);
  });

  it('rewrites the documented ports where they follow a colon, = or a space', () => {
    const ports = { control: 40001, admin: 40002, xds: 40003 };
    expect(rewritePorts('curl localhost:15014/x --admin 127.0.0.1:15000', ports)).toBe(
      'curl localhost:40001/x --admin 127.0.0.1:40002',
    );
    expect(rewritePorts('--port=15012 --control-port 15014 v115014', ports)).toBe(
      '--port=40003 --control-port 40001 v115014',
    );
  });
});

describe('documented output', () => {
  it('reads JSON as docs write it, with … for more of the same', () => {
    expect(parseDocJson('{"a":[…],"b":"x…y", …}')).toEqual({ a: [], b: 'x…y' });
    expect(parseDocJson('not json')).toBeUndefined();
  });

  it('checks JSON by shape: keys, kinds, and array elements that fit some printed one', () => {
    const doc = '{"fault":{"id":"x","counts":{}},"list":[{"name":"delay","n":1}],"…":1}';
    const good =
      '{"fault":{"id":"down-1","counts":{"a":1},"more":true},"list":[{"name":"w"},{"name":"d","n":2}]}';
    expect(checkJson(doc, good)).toEqual([]);
    expect(checkJson(doc, '{"fault":{"id":7,"counts":{}},"list":[]}')).toEqual([
      '$.fault.id: the doc shows string, the command printed number',
      '$.list[0]: the doc shows an element, found none',
    ]);
    expect(checkJson('400 {"error":"…"}', '{"error":"bad"}')).toEqual([]);
    expect(checkJson('{"a":1}', 'oops')[0]).toContain('the command printed: oops');
  });

  it('checks text with … as a wildcard, and a table by its header', () => {
    expect(checkText("configuration '…' OK", "configuration 'sidecar.yaml' OK\n")).toEqual([]);
    expect(checkText('CLUSTER_ID: east', '  CLUSTER_ID: west')).toHaveLength(1);
    expect(checkColumns('NAME     CDS     LDS\nrow', 'NAME   CDS   LDS\n')).toEqual([]);
    expect(checkColumns('NAME     CDS', 'NAME   LDS')[0]).toContain('NAME, CDS');
  });
});
