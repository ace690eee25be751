/**
 * The live page's entry point. Web Awesome components are imported one by one (only those
 * used), and the page loads nothing from outside the mock: no CDN, no web fonts (the theme
 * uses the system's fonts), no icon kit (only the components' built-in system icons).
 */
import '@awesome.me/webawesome/dist/styles/themes/default.css';
import '@awesome.me/webawesome/dist/components/badge/badge.js';
import '@awesome.me/webawesome/dist/components/button/button.js';
import '@awesome.me/webawesome/dist/components/input/input.js';
import '@awesome.me/webawesome/dist/components/option/option.js';
import '@awesome.me/webawesome/dist/components/select/select.js';
import '@awesome.me/webawesome/dist/components/tag/tag.js';
import type {} from '@awesome.me/webawesome/dist/custom-elements-jsx.d.ts';
import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

const root = document.getElementById('app');
if (root) render(<App />, root);
