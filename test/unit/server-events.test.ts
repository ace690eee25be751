/**
 * The server's event emitter (core/events.ts) calls its listeners as Node's EventEmitter does:
 * the same listeners, in the same order, with the same arguments and `this`, whatever is added
 * or removed between emits or by a listener during one. It only copies the listeners when they
 * change instead of on every emit.
 */
import { EventEmitter, once } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServerEventEmitter } from '../../src/core/events.js';

const EVENTS = ['request', 'response', 'state'] as const;

type Op =
  | { op: 'on' | 'once' | 'prepend' | 'off'; event: number; id: number }
  | { op: 'removeAll'; event: number | undefined }
  | { op: 'emit'; event: number; args: number }
  | { op: 'addDuring' | 'offDuring'; event: number; id: number; other: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constantFrom('on', 'once', 'prepend', 'off'),
    event: fc.nat(2),
    id: fc.nat(4),
  }),
  fc.record({ op: fc.constant('removeAll'), event: fc.option(fc.nat(2), { nil: undefined }) }),
  fc.record({ op: fc.constant('emit'), event: fc.nat(2), args: fc.nat(5) }),
  fc.record({
    op: fc.constantFrom('addDuring', 'offDuring'),
    event: fc.nat(2),
    id: fc.nat(4),
    other: fc.nat(4),
  }),
);

/** Runs the operations on an emitter; what its listeners saw, in order. */
function run(emitter: EventEmitter, ops: readonly Op[]): string[] {
  const seen: string[] = [];
  const listeners = new Map<string, (...args: unknown[]) => void>();
  const listener = (event: number, id: number, during?: Op) => {
    const key = `${event}:${id}:${during ? JSON.stringify(during) : ''}`;
    let fn = listeners.get(key);
    if (!fn) {
      fn = function (this: unknown, ...args: unknown[]) {
        seen.push(`${EVENTS[event]} ${id} (${args.join(',')}) this=${this === emitter}`);
        const name = EVENTS[event] as string;
        if (during?.op === 'addDuring') emitter.on(name, listener(event, during.other));
        if (during?.op === 'offDuring') emitter.off(name, listener(event, during.other));
      };
      listeners.set(key, fn);
    }
    return fn;
  };
  for (const o of ops) {
    const name = o.event === undefined ? undefined : (EVENTS[o.event] as string);
    switch (o.op) {
      case 'on':
        emitter.on(name!, listener(o.event, o.id));
        break;
      case 'once':
        emitter.once(name!, listener(o.event, o.id));
        break;
      case 'prepend':
        emitter.prependListener(name!, listener(o.event, o.id));
        break;
      case 'off':
        emitter.off(name!, listener(o.event, o.id));
        break;
      case 'removeAll':
        if (name === undefined) emitter.removeAllListeners();
        else emitter.removeAllListeners(name);
        break;
      case 'addDuring':
      case 'offDuring':
        emitter.on(name!, listener(o.event, o.id, o));
        break;
      case 'emit': {
        const args = Array.from({ length: o.args }, (_, i) => i);
        seen.push(`emit ${name} -> ${emitter.emit(name!, ...args)}`);
      }
    }
  }
  return seen;
}

describe('the server event emitter', () => {
  it('calls what Node’s EventEmitter calls, for any listeners added and removed', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const node = new EventEmitter();
        node.setMaxListeners(0);
        expect(run(new ServerEventEmitter() as unknown as EventEmitter, ops)).toEqual(
          run(node, ops),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('throws an unheard error as Node does, and hands a heard one to its listener', () => {
    const events = new ServerEventEmitter() as unknown as EventEmitter;
    expect(() => events.emit('error', new Error('nobody listens'))).toThrow('nobody listens');
    const heard: unknown[] = [];
    events.on('error', (err) => heard.push(err));
    expect(events.emit('error', 'once')).toBe(true);
    expect(heard).toEqual(['once']);
  });

  it('gives node:events once() the arguments emitted, no more', async () => {
    const events = new ServerEventEmitter();
    const waiting = once(events, 'stream-rejected');
    events.emit('stream-rejected', '127.0.0.1:5', 'bad node');
    expect(await waiting).toEqual(['127.0.0.1:5', 'bad node']);
    expect(events.listenerCount('stream-rejected')).toBe(0);
  });
});
