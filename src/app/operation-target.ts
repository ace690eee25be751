/**
 * The one `OperationTarget` (src/api/target.ts) of a mock istiod: what the control
 * operations run against, over the HTTP routes and in process (`localControl`) alike. It
 * shapes the rooms' values into the API's answers (a resource set in canonical JSON, a
 * scenario's JSON Schema, a token request checked by the CA), so the operations stay plain.
 */
import type { SetInfo, ScenarioInfo, TokenFields } from '../api/answers.js';
import { invalid, Refusal } from '../api/operation.js';
import type { OperationTarget } from '../api/target.js';
import type { MockSecurity } from '../ca/security.js';
import { resolveTokenRequest, subjectOf, type TokenRequest } from '../ca/service-account-token.js';
import type { SnapshotChange } from '../core/snapshot.js';
import { shortTypeName } from '../core/types/registry.js';
import { describeScenarios } from '../faults/registry.js';
import type { SetPins, StoredSet } from '../snapshot/store.js';
import type { ResourceSetSpec } from '../snapshot/validated-set.js';
import type { Problem, Result, ResultWithWarnings } from '../util/problems.js';
import { resourceJson } from '../debug/config-dump.js';
import { parseAdminAddress } from '../live/ui-admins.js';
import type { UiHub } from '../live/ui-hub.js';
import type { ProxyIdentity } from '../core/identity.js';
import type { Snapshot } from '../core/snapshot.js';
import { explainProxies } from './operation-explain.js';
import { AckWaiters } from './ack-waiters.js';
import { waitForAck, waitForJournal, type WaitParts } from './operation-waits.js';

/**
 * What the operations need of the mock itself: what they read of it as it is, and its
 * resources and journal in the rooms' own shapes (shaped into answers below).
 */
export type OperationSource = Pick<
  OperationTarget,
  | 'withheld'
  | 'serving'
  | 'withhold'
  | 'release'
  | 'streams'
  | 'push'
  | 'disconnect'
  | 'down'
  | 'up'
  | 'reset'
  | 'faults'
  | 'resourceStatus'
  | 'journal'
  | 'journalSinks'
> & {
  resourceSets(): readonly StoredSet[];
  setResources(resources: readonly unknown[], pins?: SetPins): ResultWithWarnings<SnapshotChange>;
  setResourceSets(sets: readonly ResourceSetSpec[]): ResultWithWarnings<SnapshotChange[]>;
  reloadResources(): Result<SnapshotChange[]>;
};

export interface OperationParts {
  mock: OperationSource;
  /** The CA, once started. */
  security(): Pick<MockSecurity, 'createToken' | 'rootCert' | 'issueCertificate'>;
  /** The default set's snapshot, and the one serving a proxy. */
  snapshot(): Snapshot;
  snapshotFor(proxy: ProxyIdentity): Snapshot;
  /** What the waiting operations listen to. */
  waits: Pick<WaitParts, 'events' | 'journalStore' | 'closed'>;
  /** The live page's hub: its admin addresses. */
  ui: Pick<UiHub, 'admins' | 'adminsChanged'>;
}

function describeSets(sets: readonly StoredSet[]): SetInfo[] {
  return sets.map((set) => ({
    name: set.name,
    ...(set.match ? { match: set.match } : {}),
    version: set.snapshot.version,
    types: Object.fromEntries(
      set.snapshot.typeUrls().map((t) => [shortTypeName(t), set.snapshot.get(t).version]),
    ),
    resources: set.snapshot
      .typeUrls()
      .flatMap((t) => [...set.snapshot.get(t).resources.values()].map(resourceJson)),
  }));
}

/** Which types changed in each set, by istiod's short names. */
function changesBySet(changes: readonly SnapshotChange[]) {
  return changes.map((c) => ({ set: c.set, changed: c.changed.map(shortTypeName) }));
}

const KEEPS_SERVING = 'invalid resources (the last good set keeps serving)';

/**
 * `{namespace, serviceAccount, audience | audiences, ttlSeconds}` → a checked token request,
 * with every problem: fields it does not know, and each value the CA refuses.
 */
function tokenRequest(fields: TokenFields): Result<TokenRequest> {
  const { namespace, serviceAccount, audience, audiences, ttlSeconds, ...rest } = fields;
  const problems: Problem[] = Object.keys(rest).map((key) => ({
    path: key,
    message: 'unknown field (expected namespace, serviceAccount, audience(s), ttlSeconds)',
  }));
  if (audience !== undefined && audiences !== undefined) {
    problems.push({ path: 'audience', message: 'give audience or audiences, not both' });
  }
  const given = {
    namespace,
    serviceAccount,
    audiences: audience !== undefined ? [audience] : audiences,
    ttlSeconds,
  };
  const partial = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  // The CA checks each value's type and range (resolveTokenRequest).
  const checked = resolveTokenRequest(partial);
  if (!checked.ok) problems.push(...checked.problems);
  return problems.length > 0 || !checked.ok ? { ok: false, problems } : checked;
}

export function createOperationTarget(parts: OperationParts): OperationTarget {
  const { mock, ui } = parts;
  const currentVersion = (stream: { proxy: ProxyIdentity }, typeUrl: string) => {
    const snapshot = parts.snapshotFor(stream.proxy);
    return snapshot.typeUrls().includes(typeUrl) ? snapshot.get(typeUrl).version : undefined;
  };
  const streams = () => mock.streams();
  const waits: WaitParts = {
    ...parts.waits,
    streams,
    journal: (filter) => mock.journal(filter),
    currentVersion,
    acks: new AckWaiters({ events: parts.waits.events, streams, currentVersion }),
  };
  return {
    get withheld() {
      return mock.withheld;
    },
    get serving() {
      return mock.serving;
    },
    withhold: () => mock.withhold(),
    release: () => mock.release(),
    streams: () => mock.streams(),
    versions: () => {
      const snapshot = parts.snapshot();
      return Object.fromEntries(
        snapshot.typeUrls().map((t) => [shortTypeName(t), snapshot.get(t).version]),
      );
    },
    currentVersion,
    waitForAck: (query, signal) => waitForAck(waits, query, signal),
    waitForJournal: (filter, waitMs, signal) => waitForJournal(waits, filter, waitMs, signal),
    push: (selector) => mock.push(selector),
    disconnect: (selector, code, message) => mock.disconnect(selector, code, message),
    down: () => mock.down(),
    up: () => mock.up(),
    reset: () => mock.reset(),
    faults: mock.faults,
    scenarios: () => describeScenarios() as ScenarioInfo[],
    resourceSets: () => describeSets(mock.resourceSets()),
    setResources: (resources, pins) => {
      const result = mock.setResources(resources, pins as SetPins | undefined);
      if (!result.ok) return invalid(KEEPS_SERVING, result.problems);
      return {
        version: result.value.snapshot.version,
        changed: result.value.changed.map(shortTypeName),
        warnings: result.warnings,
      };
    },
    setResourceSets: (sets) => {
      // The store checks every set in depth (name, match, each resource), all or nothing.
      const result = mock.setResourceSets(sets as ResourceSetSpec[]);
      if (!result.ok) return invalid(KEEPS_SERVING, result.problems);
      return { changed: changesBySet(result.value), warnings: result.warnings };
    },
    reloadResources: () => {
      if (mock.resourceStatus().source === 'api') {
        return new Refusal(409, 'this server does not serve resources from files');
      }
      const result = mock.reloadResources();
      if (!result.ok) {
        return invalid('invalid resource files (the last good sets keep serving)', result.problems);
      }
      return { changed: changesBySet(result.value) };
    },
    resourceStatus: () => mock.resourceStatus(),
    journal: (filter) => mock.journal(filter),
    journalSinks: () => mock.journalSinks(),
    mintToken: (fields) => {
      const request = tokenRequest(fields);
      if (!request.ok) return invalid('invalid token request', request.problems);
      const { token, expiresAt } = parts.security().createToken(request.value);
      return { token, expiresAt: expiresAt.toISOString(), subject: subjectOf(request.value) };
    },
    issueCertificate: async (fields) => {
      const issuer = parts.security().issueCertificate;
      if (issuer.cannotSign) return new Refusal(409, issuer.cannotSign);
      const issued = await issuer(fields);
      return issued.ok ? issued.value : invalid('invalid certificate request', issued.problems);
    },
    rootCert: () => parts.security().rootCert,
    admins: {
      list: () => ui.admins.list(),
      add: (address) => {
        const parsed = parseAdminAddress(address);
        if (!parsed.ok) return invalid('invalid admin address', parsed.problems);
        const admin = ui.admins.add(parsed.value);
        ui.adminsChanged();
        return admin;
      },
      remove: (address) => {
        const parsed = parseAdminAddress(address);
        if (!parsed.ok || !ui.admins.remove(parsed.value)) return false;
        ui.adminsChanged();
        return true;
      },
    },
    explain: (query) =>
      explainProxies(
        { streams: () => mock.streams(), addressOf: (stream) => ui.admins.addressOf(stream) },
        query,
      ),
  };
}
