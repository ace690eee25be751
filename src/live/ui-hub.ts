/**
 * The live page's side of the server: every open page (`GET /ui/events`) gets a snapshot,
 * then what changed, batched every `flushMs`. It listens to the server only while a page is
 * open: with none, no journal sink, no fault or state listener, no timer and no polling
 * exist, so the xDS path pays nothing. While pages are open, the xDS path pays one array push
 * per journal entry; rows, JSON and writes happen in the batch, once for all pages.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamView } from '../core/events.js';
import type { FaultInfo } from '../faults/model.js';
import type { JournalEntry } from '../journal/journal.js';
import { UiAdmins } from './ui-admins.js';
import { JournalBatch, ProxyRows } from './ui-batches.js';
import type { FaultAction, UiHubOptions, UiTarget } from './ui-target.js';
import { sseFrame, UI_HARD_LIMIT_BYTES, UiClient, type UiClientInfo } from './ui-client.js';
import { snapshotFrame, UI_SNAPSHOT_MAX_BYTES } from './ui-trim.js';
import {
  UI_EVENTS_VERSION,
  UI_SNAPSHOT_JOURNAL,
  UI_SNAPSHOT_SAMPLES,
  type UiFaultMarker,
  type UiServerState,
  type UiSnapshot,
  type UiStatSample,
} from './ui-events.js';
import {
  catalogue,
  faultRow,
  holdingFaults,
  isWaiting,
  journalRow,
  openRequests,
  proxyRow,
  UI_COLUMNS,
} from './ui-views.js';

/** The longest a snapshot is reused for pages that connect while nothing changes. */
const SNAPSHOT_REUSE_MS = 1_000;

const FAULT_ACTIONS: readonly FaultAction[] = ['applied', 'activated', 'done', 'removed'];

/** The share of the event loop's time the batches may take (see `flush`). */
const FLUSH_BUDGET = 0.02;
/** …but a page hears from the mock at least this often. */
const MAX_DELAY_MS = 5_000;
/** A pause in journal entries this long means the streams are not busy. */
const QUIET_MS = 50;
/** …but a batch waits for one at most this long. */
const MAX_QUIET_WAIT_MS = 1_000;

export class UiHub {
  readonly admins: UiAdmins;
  private readonly clients = new Set<UiClient>();
  private nextId = 0;
  private detach: (() => void) | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly batch: JournalBatch;
  private readonly rows = new ProxyRows();
  private markers: UiFaultMarker[] = [];
  private faultsChanged = false;
  private stateChanged = false;
  private holding: FaultInfo[] = [];
  private samples: UiStatSample[] = [];
  private readonly history = new Map<string, UiStatSample[]>();
  private adminsJson = '[]';
  private readonly flushMs: number;
  /** When the next batch may go out: later after an expensive one (see `flush`). */
  private nextDelayMs: number;
  private lastBulkRows = -Infinity;
  /** When the newest journal entry came, and since when changes wait to go out. */
  private lastEntryAt = -Infinity;
  private pendingSince = Number.POSITIVE_INFINITY;
  private readonly pollMs: number;
  private cachedSnapshot: { frame: string; at: number } | undefined;

  constructor(
    private readonly target: UiTarget,
    private readonly options: UiHubOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 200;
    this.nextDelayMs = this.flushMs;
    this.pollMs = options.pollMs ?? 1_000;
    this.batch = new JournalBatch(options.maxBatch ?? 200);
    this.admins = new UiAdmins({
      timeoutMs: options.pollTimeoutMs,
      onSample: (sample) => this.addSample(sample),
      onChange: () => {
        this.rows.markAll();
        this.schedule();
      },
      onError: (what, err) => this.failed(what, err),
    });
  }

  /** Whether any page is open (and so whether the hub listens to the server). */
  get listening(): boolean {
    return this.detach !== undefined;
  }

  /** Serves one page's event stream until it goes away. */
  connect(_req: IncomingMessage, res: ServerResponse): void {
    // Whatever is pending goes to the pages already open, so that the snapshot below is the
    // newcomer's whole starting point.
    this.flush(true);
    const client = new UiClient(++this.nextId, res, () => this.snapshotFrame(), {
      ...this.options.client,
      onError: (what, err) => this.failed(what, err),
    });
    if (this.clients.size === 0) this.attach();
    this.clients.add(client);
    res.on('close', () => {
      this.clients.delete(client);
      if (this.clients.size === 0) this.stop();
    });
    client.offer(this.snapshotFrame());
  }

  clientInfo(): UiClientInfo[] {
    return [...this.clients].map((c) => c.info());
  }

  snapshot(): UiSnapshot {
    const streams = this.target.streams();
    const views = new Map(streams.map((s) => [s.connectionId, s]));
    const entries = this.target.journal({ limit: UI_SNAPSHOT_JOURNAL });
    const open = openRequests(entries, this.target.withheld, this.holding);
    return {
      version: UI_EVENTS_VERSION,
      at: new Date().toISOString(),
      ...(this.options.lang !== undefined && { lang: this.options.lang }),
      addresses: this.options.addresses?.() ?? {},
      state: this.state(),
      columns: UI_COLUMNS,
      proxies: streams.map((s) => proxyRow(s, this.admins.extras(s))),
      faults: this.target.faults.list().map(faultRow),
      journal: entries.map((e) => journalRow(e, views.get(e.connectionId ?? ''), open.has(e.seq))),
      stats: [...this.history.values()].flat().sort((a, b) => a.at - b.at),
      admins: this.admins.list(),
      catalogue: catalogue(),
    };
  }

  /** Something a page should see at once (an admin address added or removed). */
  adminsChanged(): void {
    this.rows.markAll();
    if (this.listening) {
      this.pollRound();
      this.schedule();
    }
  }

  close(): void {
    for (const client of this.clients) client.close();
    this.clients.clear();
    this.stop();
  }

  private state(): UiServerState {
    return { withheld: this.target.withheld, serving: this.target.serving };
  }

  /**
   * A snapshot that fits well within a page's buffer limit (ui-trim.ts): never cut off. Built
   * once for every page that connects until something changes (`schedule()` forgets it), so
   * that hundreds of pages opening at once cost one snapshot, not hundreds: what changes
   * after it reaches each of them in the next batch, as it reaches the pages already open.
   */
  private snapshotFrame(): string {
    const now = performance.now();
    if (this.cachedSnapshot && now - this.cachedSnapshot.at < SNAPSHOT_REUSE_MS) {
      return this.cachedSnapshot.frame;
    }
    const hardLimit = this.options.client?.hardLimitBytes ?? UI_HARD_LIMIT_BYTES;
    const frame = snapshotFrame(this.snapshot(), Math.min(UI_SNAPSHOT_MAX_BYTES, hardLimit / 2));
    this.cachedSnapshot = { frame, at: now };
    return frame;
  }

  private attach(): void {
    const { target } = this;
    const offJournal = target.journalStore.addSink((entry) => this.onEntry(entry));
    const onFault = FAULT_ACTIONS.map((action) => {
      const listener = (fault: FaultInfo) => this.onFault(action, fault);
      target.faults.events.on(action, listener);
      return () => target.faults.events.off(action, listener);
    });
    const onState = () => {
      this.stateChanged = true;
      this.schedule();
    };
    target.events.on('state', onState);
    this.holding = holdingFaults(target.faults.list());
    const poll = setInterval(() => this.pollRound(), this.pollMs);
    poll.unref();
    this.pollRound();
    this.detach = () => {
      clearInterval(poll);
      offJournal();
      for (const off of onFault) off();
      target.events.off('state', onState);
    };
  }

  /** One poll round, from the timer: it reads what clients sent, so it catches its own errors. */
  private pollRound(): void {
    try {
      this.admins.tick(this.target.streams());
    } catch (err) {
      this.failed('a poll round', err);
    }
  }

  private failed(what: string, err: unknown): void {
    try {
      this.options.onError?.(what, err);
    } catch {
      // A reporter that fails (a log write) must not take the timer down either.
    }
  }

  private stop(): void {
    this.cachedSnapshot = undefined;
    this.detach?.();
    this.detach = undefined;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.batch.clear();
    this.rows.clear();
    this.markers = [];
    this.samples = [];
  }

  /** On the xDS path: keep it to a set insertion, a push and a clock read (ui-batches.ts). */
  private onEntry(entry: JournalEntry): void {
    if (entry.connectionId !== undefined) this.rows.markDirty(entry.connectionId);
    this.lastEntryAt = performance.now();
    this.batch.add(entry, isWaiting(entry, this.target.withheld, this.holding));
    this.schedule();
  }

  private onFault(action: UiFaultMarker['action'], fault: FaultInfo): void {
    this.markers.push({ action, time: new Date().toISOString(), fault: faultRow(fault) });
    this.faultsChanged = true;
    this.holding = holdingFaults(this.target.faults.list());
    this.schedule();
  }

  private addSample(sample: UiStatSample): void {
    const list = this.history.get(sample.admin) ?? [];
    list.push(sample);
    if (list.length > UI_SNAPSHOT_SAMPLES) list.shift();
    this.history.set(sample.admin, list);
    this.samples.push(sample);
    this.schedule();
  }

  private schedule(): void {
    this.cachedSnapshot = undefined;
    if (this.flushTimer || this.clients.size === 0) return;
    this.pendingSince = Math.min(this.pendingSince, performance.now());
    this.flushTimer = setTimeout(() => this.safeFlush(), this.nextDelayMs);
  }

  /** A batch from its timer: a row built from what a client sent must not end the process. */
  private safeFlush(): void {
    try {
      this.flush();
    } catch (err) {
      this.flushTimer = undefined;
      this.failed('a batch for the live page', err);
    }
  }

  /**
   * Sends what changed to every page. It shares the event loop with the xDS streams, so its
   * cost is budgeted: after a batch that took `c` ms the next waits at least `c / BUDGET` ms
   * (a push to 1,000 streams changes 1,000 rows; building them every 200 ms would take a
   * visible share of the push's time). Pages see large changes less often, never late by more
   * than a few batches' worth.
   */
  private flush(force = false): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.clients.size === 0) return;
    const started = performance.now();
    // While the streams are busy (a push in flight: entries less than QUIET_MS apart), wait
    // for a pause, up to MAX_QUIET_WAIT_MS, so that the batch does not lengthen the push.
    const busy = started - this.lastEntryAt < QUIET_MS;
    if (!force && busy && started - this.pendingSince < MAX_QUIET_WAIT_MS) {
      this.flushTimer = setTimeout(() => this.safeFlush(), QUIET_MS);
      return;
    }
    this.pendingSince = Number.POSITIVE_INFINITY;
    this.send();
    const cost = performance.now() - started;
    this.nextDelayMs = Math.min(MAX_DELAY_MS, Math.max(this.flushMs, cost / FLUSH_BUDGET));
  }

  private send(): void {
    const frames = [
      ...this.controlFrames(),
      ...this.batch.frames(() => this.views()),
      ...this.rowFrames(),
    ];
    if (this.samples.length > 0) frames.push(sseFrame('stats', this.samples.splice(0)));
    const admins = JSON.stringify(this.admins.list());
    if (admins !== this.adminsJson) {
      this.adminsJson = admins;
      frames.push(`event: admins\ndata: ${admins}\n\n`);
    }
    for (const client of this.clients) for (const frame of frames) client.offer(frame);
  }

  private controlFrames(): string[] {
    const frames: string[] = [];
    if (this.stateChanged) frames.push(sseFrame('state', this.state()));
    this.stateChanged = false;
    for (const marker of this.markers.splice(0)) frames.push(sseFrame('fault', marker));
    if (this.faultsChanged) {
      frames.push(sseFrame('faults', this.target.faults.list().map(faultRow)));
    }
    this.faultsChanged = false;
    return frames;
  }

  private rowFrames(): string[] {
    const { frames, deferred } = this.rows.frames(
      () => this.target.streams(),
      (stream) => this.admins.extras(stream),
    );
    if (deferred) this.schedule();
    return frames;
  }

  private views(): Map<string, StreamView> {
    return new Map(this.target.streams().map((s) => [s.connectionId, s]));
  }
}
