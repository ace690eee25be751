/**
 * The control API token, asked for when the mock has one (the event stream answered 401) or
 * on request; kept in sessionStorage for this tab only.
 */
import { useState } from 'preact/hooks';
import { loadToken, saveToken } from '../api.js';
import { useT } from '../i18n.js';

export function TokenBar({ onChange }: { onChange: () => void }) {
  const t = useT();
  const [token, setToken] = useState(loadToken());
  const save = (value: string) => {
    saveToken(value);
    setToken(value);
    onChange();
  };
  return (
    <form
      class="field-row token"
      onSubmit={(event) => {
        event.preventDefault();
        save(token);
      }}
    >
      <wa-input
        type="password"
        label={t('token.label')}
        hint={t('token.hint')}
        value={token}
        autocomplete="off"
        data-testid="token-input"
        onInput={(event: Event) => setToken((event.target as HTMLInputElement).value)}
      />
      <wa-button type="submit" variant="brand" data-testid="token-save">
        {t('token.save')}
      </wa-button>
      <wa-button appearance="outlined" onClick={() => save('')}>
        {t('token.clear')}
      </wa-button>
    </form>
  );
}
