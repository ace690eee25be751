/** The page's language as a Preact context, and `useT()` for the current language's messages. */
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext } from 'preact/hooks';
import { format, type Lang, type MessageKey } from './messages.js';

const LangContext = createContext<Lang>('en');

export function LangProvider({ lang, children }: { lang: Lang; children: ComponentChildren }) {
  return <LangContext.Provider value={lang}>{children}</LangContext.Provider>;
}

export type Translate = (key: MessageKey, values?: Record<string, string | number>) => string;

export function useLang(): Lang {
  return useContext(LangContext);
}

export function useT(): Translate {
  const lang = useContext(LangContext);
  return useCallback<Translate>((key, values) => format(lang, key, values), [lang]);
}
