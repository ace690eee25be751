/**
 * Envoy's API types added to the root a package at a time, when first looked up: a start that
 * serves the lab reaches about a third of the ~650 prepared types, and building protobufjs's
 * reflection objects for all of them was the largest part of the first start.
 *
 * At build time the resolved root is split into units, one per package (a namespace holding
 * types, enums, services or extension fields directly), each with the units its fields and
 * methods name (worked out from the resolved root, so a reference always finds the type it
 * found when everything was loaded). At run time, a lookup from the root (`lookupType`,
 * `lookup`, what `Any` type URLs and the services use) first adds the unit holding the name
 * and every unit it needs; fields then resolve as usual inside what is loaded. `resolveAll`
 * and `toJSON` load every unit first, so the root still describes every type.
 */
import protobuf from 'protobufjs';

/** A package's own options and its types, enums, services and extension fields, as JSON. */
export interface TypeUnit {
  options?: Record<string, unknown>;
  nested: Record<string, protobuf.AnyNestedObject>;
  /** The other units this one's fields, methods and extensions name. */
  needs: string[];
}

export type TypeUnits = Record<string, TypeUnit>;

/** Is `object` a package (or the root), rather than a type, enum, service or field? */
function isPackage(object: protobuf.ReflectionObject): boolean {
  return (
    object instanceof protobuf.Namespace &&
    !(object instanceof protobuf.Type) &&
    !(object instanceof protobuf.Service)
  );
}

/** The package a type, enum, service or field is declared in, by full name (no dot). */
function unitOf(object: protobuf.ReflectionObject): string {
  let at = object.parent;
  while (at && !isPackage(at)) at = at.parent;
  return (at?.fullName ?? '').replace(/^\./, '');
}

/** The types a unit's member names: its fields' (nested types' too) and its methods'. */
function named(object: protobuf.ReflectionObject, out: Set<string>): void {
  if (object instanceof protobuf.Field) {
    object.resolve();
    if (object.resolvedType) out.add(unitOf(object.resolvedType));
    if (object.extend !== undefined && object.extensionField) {
      out.add(unitOf(object.extensionField.parent as protobuf.ReflectionObject));
    }
  } else if (object instanceof protobuf.Service) {
    for (const method of object.methodsArray) {
      method.resolve();
      for (const type of [method.resolvedRequestType, method.resolvedResponseType]) {
        if (type) out.add(unitOf(type));
      }
    }
  }
  if (object instanceof protobuf.Type) {
    for (const field of object.fieldsArray) named(field, out);
  }
  if (object instanceof protobuf.Namespace) {
    for (const nested of object.nestedArray) named(nested, out);
  }
}

/** Splits a fully resolved root into units (build time). */
export function splitIntoUnits(root: protobuf.Root): TypeUnits {
  const units: TypeUnits = {};
  const visit = (ns: protobuf.Namespace): void => {
    const members = ns.nestedArray.filter((object) => !isPackage(object));
    if (members.length > 0 || (ns !== root && ns.options !== undefined)) {
      const name = ns.fullName.replace(/^\./, '');
      const needs = new Set<string>();
      for (const member of members) named(member, needs);
      needs.delete(name);
      units[name] = {
        ...(ns.options !== undefined && { options: ns.options }),
        nested: Object.fromEntries(members.map((m) => [m.name, m.toJSON()])),
        needs: [...needs].sort(),
      };
    }
    for (const object of ns.nestedArray) if (isPackage(object)) visit(object as protobuf.Namespace);
  };
  visit(root);
  return units;
}

interface FeatureResolving {
  _edition?: unknown;
  /** protobufjs 7.5 on; an older one has no features to work out. */
  _resolveFeaturesRecursive?: (edition: unknown) => void;
}

/**
 * A root whose units are added when first looked up (run time). protobufjs works out what a
 * proto3 file's syntax means for each field (its "features") once per object; that is done
 * for each unit as it is added.
 */
export function lazyRoot(units: TypeUnits): protobuf.Root {
  const root = new protobuf.Root();
  const pending = new Map(Object.entries(units));
  const features = root as unknown as FeatureResolving;

  const add = (name: string): void => {
    const unit = pending.get(name);
    if (unit === undefined) return;
    pending.delete(name);
    const ns = name === '' ? root : root.define(name);
    if (unit.options) ns.setOptions(unit.options);
    ns.addJSON(unit.nested);
    for (const needed of unit.needs) add(needed);
  };
  const load = (names: Iterable<string>): void => {
    for (const name of names) add(name);
    features._resolveFeaturesRecursive?.(features._edition);
  };
  /** The unit holding `name` (a full name): the longest unit name it starts with. */
  const ensure = (path: string | string[]): void => {
    if (pending.size === 0) return;
    const parts = (Array.isArray(path) ? path : path.split('.')).filter((p) => p !== '');
    for (let n = parts.length; n > 0; n--) {
      const name = parts.slice(0, n).join('.');
      if (pending.has(name)) return load([name]);
      if (units[name]) return; // loaded already
    }
  };
  if (units[''] !== undefined) load(['']); // declared outside any package: always there
  const loadAll = (): void => {
    if (pending.size > 0) load([...pending.keys()]);
  };

  const proto = protobuf.Root.prototype;
  return Object.assign(root, {
    lookup(this: protobuf.Root, path: string | string[], ...rest: unknown[]) {
      ensure(path);
      type Lookup = (this: protobuf.Root, ...args: unknown[]) => protobuf.ReflectionObject | null;
      return (proto as unknown as { lookup: Lookup }).lookup.call(this, path, ...rest);
    },
    resolveAll(this: protobuf.Root) {
      loadAll();
      return proto.resolveAll.call(this);
    },
    toJSON(this: protobuf.Root, options?: protobuf.IToJSONOptions) {
      loadAll();
      return proto.toJSON.call(this, options);
    },
  });
}
