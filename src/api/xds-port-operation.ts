/**
 * What `down` and `up` share: a POST with no input that closes or opens the xDS port, and
 * answers whether the port is serving afterwards.
 */
import { bool, object } from './answers.js';
import { answer, defineOperation, type ButtonSpec } from './operation.js';

export function xdsPortOperation<const N extends 'down' | 'up'>(
  name: N,
  text: { summary: string; cliSummary: string; help: string; done: string },
  button: ButtonSpec,
) {
  return defineOperation({
    name,
    method: 'POST',
    path: `/control/${name}`,
    summary: text.summary,
    input: {},
    output: answer<{ serving: boolean }>(object({ serving: bool }, ['serving'])),
    cli: { summary: text.cliSummary, help: text.help, text: () => text.done },
    timeline: true,
    button,
    run: async (t) => {
      await (name === 'down' ? t.down() : t.up());
      return { serving: t.serving };
    },
  });
}
