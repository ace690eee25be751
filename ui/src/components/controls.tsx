/**
 * The buttons that make the mock misbehave, each a call to the control API: withhold /
 * release, down / up, a NACK from the fault library's catalogue, a delay. The last outcome is
 * announced in a live region (screen readers hear it).
 */
import { useState } from 'preact/hooks';
import { control } from '../api.js';
import type { Operation } from '../../../src/api/operation.js';
import { OPERATIONS } from '../../../src/api/table.js';
import { BUTTON_LABELS } from '../buttons.js';
import { useT } from '../i18n.js';
import type { MessageKey } from '../messages.js';
import type { UiServerState } from '../../../src/live/ui-events.js';

const BUTTONS = (OPERATIONS as readonly Operation[]).flatMap((op) =>
  op.button
    ? [
        {
          op,
          variant: op.button.variant,
          label: BUTTON_LABELS[op.name as keyof typeof BUTTON_LABELS],
        },
      ]
    : [],
);

interface Outcome {
  ok: boolean;
  text: string;
}

export function Controls({ state, nackConfigs }: { state: UiServerState; nackConfigs: string[] }) {
  const t = useT();
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [nack, setNack] = useState('');
  const [delayMs, setDelayMs] = useState('2000');
  const nackConfig = nack || nackConfigs[0] || '';

  const act = async (label: MessageKey, call: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await call();
      setOutcome({ ok: true, text: t('controls.ok', { action: t(label) }) });
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      setOutcome({ ok: false, text: t('controls.failed', { action: t(label), error }) });
    } finally {
      setBusy(false);
    }
  };
  const run = (label: MessageKey, call: () => Promise<unknown>) => () => void act(label, call);

  return (
    <section class="panel controls" aria-labelledby="controls-title">
      <h2 id="controls-title">{t('controls.title')}</h2>
      <p class="state-line" data-testid="mock-state">
        <wa-badge variant={state.withheld ? 'warning' : 'success'} data-testid="withheld-state">
          {t(state.withheld ? 'state.withheld' : 'state.notWithheld')}
        </wa-badge>{' '}
        <wa-badge variant={state.serving ? 'success' : 'danger'} data-testid="serving-state">
          {t(state.serving ? 'state.serving' : 'state.down')}
        </wa-badge>
      </p>
      <div class="button-row">
        {BUTTONS.map((b) => (
          <wa-button
            key={b.op.name}
            variant={b.variant}
            data-testid={`${b.op.name}-button`}
            disabled={busy}
            onClick={run(b.label, () => control.run(b.op))}
          >
            {t(b.label)}
          </wa-button>
        ))}
      </div>
      <div class="field-row">
        <wa-select
          label={t('controls.nack')}
          value={nackConfig}
          data-testid="nack-select"
          onChange={(event: Event) => setNack((event.target as HTMLSelectElement).value)}
        >
          {nackConfigs.map((name) => (
            <wa-option key={name} value={name}>
              {name}
            </wa-option>
          ))}
        </wa-select>
        <wa-button
          variant="warning"
          data-testid="nack-button"
          disabled={busy || !nackConfig}
          onClick={run('controls.nackApply', () =>
            control.call('applyFault', { scenario: 'nack', params: { config: nackConfig } }),
          )}
        >
          {t('controls.nackApply')}
        </wa-button>
      </div>
      <div class="field-row">
        <wa-input
          type="number"
          min={0}
          label={t('controls.delay')}
          value={delayMs}
          data-testid="delay-input"
          onInput={(event: Event) => setDelayMs((event.target as HTMLInputElement).value)}
        />
        <wa-button
          data-testid="delay-button"
          disabled={busy || !/^\d+$/.test(delayMs)}
          onClick={run('controls.delayApply', () =>
            control.call('applyFault', { scenario: 'delay', params: { ms: Number(delayMs) } }),
          )}
        >
          {t('controls.delayApply')}
        </wa-button>
      </div>
      <p
        role="status"
        aria-live="polite"
        class={outcome?.ok === false ? 'outcome error' : 'outcome'}
        data-testid="control-outcome"
      >
        {outcome?.text ?? ''}
      </p>
    </section>
  );
}
