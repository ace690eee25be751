/**
 * The whole page: header, pods, chart, controls, faults, the ADS exchange, and what each
 * injection number becomes in a chosen proxy's Envoy.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { UiProxy, UiStatSample } from '../../src/live/ui-events.js';
import { AdminInput } from './components/admin-input.js';
import { Controls } from './components/controls.js';
import { Explain } from './components/explain.js';
import { Faults } from './components/faults.js';
import { Pods } from './components/pods.js';
import { Sequence } from './components/sequence.js';
import { StatsChart } from './components/stats-chart.js';
import { TokenBar } from './components/token-bar.js';
import { LangProvider, useT } from './i18n.js';
import { pickLang, type Lang } from './messages.js';
import { buildChart } from './model/chart.js';
import type { PageState } from './model/state.js';
import { useEventStream, type StreamStatus } from './stream.js';

/** The route that adds an Envoy admin address (ui-events.ts, `UiAdminRequest`). */

export function App() {
  const [attempt, setAttempt] = useState(0);
  const { page, status } = useEventStream(attempt);
  const lang: Lang = pickLang(window.location.search, navigator.languages, page.lang);
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  return (
    <LangProvider lang={lang}>
      <Page page={page} status={status} lang={lang} onToken={() => setAttempt((n) => n + 1)} />
    </LangProvider>
  );
}

/** A label for an admin's lines: its pod's name when a proxy reports that admin. */
function adminNamer(proxies: UiProxy[]) {
  return (sample: UiStatSample) => {
    const proxy =
      proxies.find((p) => p.envoy.admin === sample.admin) ??
      proxies.find((p) => sample.nodeId !== undefined && p.nodeId === sample.nodeId);
    return proxy?.name ?? sample.admin.replace(/^https?:\/\//, '');
  };
}

interface PageProps {
  page: PageState;
  status: StreamStatus;
  lang: Lang;
  onToken: () => void;
}

function Page({ page, status, lang, onToken }: PageProps) {
  const t = useT();
  const chart = useMemo(
    () => buildChart(page.samples, adminNamer(page.proxies)),
    [page.samples, page.proxies],
  );
  const statusVariant =
    status === 'live' ? 'success' : status === 'connecting' ? 'neutral' : 'danger';
  return (
    <>
      <header class="top">
        <div>
          <h1>{t('page.title')}</h1>
          <p class="muted">{t('page.subtitle')}</p>
        </div>
        <nav class="top-right" aria-label={t('page.language')}>
          <wa-badge variant={statusVariant} data-testid="stream-status" data-status={status}>
            {t(`stream.${status}`)}
          </wa-badge>
          <a href="?lang=en" aria-current={lang === 'en' ? 'true' : undefined} lang="en">
            English
          </a>
          <a href="?lang=ko" aria-current={lang === 'ko' ? 'true' : undefined} lang="ko">
            한국어
          </a>
        </nav>
      </header>
      {status === 'unauthorized' && <TokenBar onChange={onToken} />}
      {page.dropped > 0 && (
        <p class="muted small" data-testid="gap">
          {t('stream.gap')}
        </p>
      )}
      <main>
        <Pods proxies={page.proxies} columns={page.columns} />
        <div class="columns">
          <div>
            <section class="panel" aria-labelledby="chart-title">
              <h2 id="chart-title">{t('chart.title')}</h2>
              <StatsChart data={chart} />
              <AdminInput />
            </section>
            <Controls state={page.state} nackConfigs={page.catalogue.nacks.map((n) => n.name)} />
            <Faults faults={page.faults} />
          </div>
          <Sequence items={page.exchange} proxies={page.proxies} />
        </div>
        <Explain proxies={page.proxies} />
      </main>
      {status !== 'unauthorized' && (
        <details class="token-details">
          <summary>{t('token.label')}</summary>
          <TokenBar onChange={onToken} />
        </details>
      )}
    </>
  );
}
