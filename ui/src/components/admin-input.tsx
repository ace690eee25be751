/** An input to add an Envoy admin address the mock does not know (a real Istio sidecar's). */
import { useState } from 'preact/hooks';
import { control } from '../api.js';
import { useT } from '../i18n.js';

export function AdminInput() {
  const t = useT();
  const [address, setAddress] = useState('');
  const [error, setError] = useState('');
  const add = async () => {
    try {
      await control.call('addAdmin', { address: address.trim() });
      setAddress('');
      setError('');
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <form
      class="field-row"
      onSubmit={(event) => {
        event.preventDefault();
        void add();
      }}
    >
      <wa-input
        label={t('admin.label')}
        hint={t('admin.hint')}
        placeholder="127.0.0.1:15000"
        value={address}
        data-testid="admin-input"
        onInput={(event: Event) => setAddress((event.target as HTMLInputElement).value)}
      />
      <wa-button type="submit" data-testid="admin-add" disabled={!address.trim()}>
        {t('admin.add')}
      </wa-button>
      <p role="status" aria-live="polite" class="outcome error" data-testid="admin-error">
        {error}
      </p>
    </form>
  );
}
