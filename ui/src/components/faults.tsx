/** The faults applied to the mock, with their state, and a button to remove each. */
import { useState } from 'preact/hooks';
import type { UiFault } from '../../../src/live/ui-events.js';
import { control } from '../api.js';
import { useT } from '../i18n.js';

const VARIANT = { armed: 'neutral', active: 'warning', done: 'success' } as const;

function summary(fault: UiFault): string {
  const params = Object.entries(fault.params).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const scope = Object.entries(fault.scope).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return [...params, ...scope].join(' ');
}

export function Faults({ faults }: { faults: UiFault[] }) {
  const t = useT();
  const [error, setError] = useState('');
  const remove = async (id: string) => {
    try {
      await control.call('removeFault', { id });
      setError('');
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <section class="panel" aria-labelledby="faults-title">
      <h2 id="faults-title">{t('faults.title')}</h2>
      {faults.length === 0 ? (
        <p data-testid="faults-empty">{t('faults.none')}</p>
      ) : (
        <ul class="faults">
          {faults.map((fault) => (
            <li key={fault.id} data-testid="fault" data-fault-id={fault.id}>
              <strong>{fault.id}</strong>{' '}
              <wa-badge variant={VARIANT[fault.state]} title={t('faults.state')}>
                {fault.state}
              </wa-badge>{' '}
              <span class="mono small">{summary(fault)}</span>
              {fault.reason && <span class="muted small"> {fault.reason}</span>}{' '}
              <wa-button size="s" appearance="outlined" onClick={() => void remove(fault.id)}>
                {t('faults.remove')}
              </wa-button>
            </li>
          ))}
        </ul>
      )}
      <p role="status" class="outcome error">
        {error}
      </p>
    </section>
  );
}
