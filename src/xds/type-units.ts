/**
 * Envoy's API types added to the root one top-level type at a time, when first looked up: a
 * start that serves the lab reaches under half of the ~650 prepared types, and building
 * protobufjs's reflection objects for all of them was the largest part of the first start.
 *
 * At build time the resolved root is split into units, one per top-level object of a package
 * (a message with its nested types, an enum, a service, an extension field), each with the
 * units its fields and methods name (worked out from the resolved root, so a reference always
 * finds the type it found when everything was loaded). At run time, a lookup from the root
 * (`lookupType`, `lookup`, what `Any` type URLs and the services use) first adds the unit
 * holding the name and every unit it needs; fields then resolve as usual inside what is
 * loaded. `resolveAll` and `toJSON` load every unit first, so the root still describes every
 * type.
 */
import protobuf from 'protobufjs';

/** A top-level type, enum, service or extension field of a package, as JSON. */
export interface TypeUnit {
  /** The package it is declared in ('' for none). */
  package: string;
  json: protobuf.AnyNestedObject;
  /** The other units its fields, methods and extension name. */
  needs: string[];
}

export interface TypeUnits {
  /** By the full name of the top-level object (no leading dot). */
  units: Record<string, TypeUnit>;
  /** The options of the packages that have some (`go_package`, …). */
  packageOptions: Record<string, Record<string, unknown>>;
}

/** Is `object` a package (or the root), rather than a type, enum, service or field? */
function isPackage(object: protobuf.ReflectionObject): boolean {
  return (
    object instanceof protobuf.Namespace &&
    !(object instanceof protobuf.Type) &&
    !(object instanceof protobuf.Service)
  );
}

function fullName(object: protobuf.ReflectionObject): string {
  return object.fullName.replace(/^\./, '');
}

/** The unit an object is in: the top-level object of its package that holds it. */
function unitOf(object: protobuf.ReflectionObject): string {
  let top = object;
  while (top.parent && !isPackage(top.parent)) top = top.parent;
  return fullName(top);
}

/** The units an object's fields (nested types' too), methods and extension name. */
function named(object: protobuf.ReflectionObject, out: Set<string>): void {
  if (object instanceof protobuf.Field) {
    object.resolve();
    if (object.resolvedType) out.add(unitOf(object.resolvedType));
    if (object.extensionField?.parent) out.add(unitOf(object.extensionField.parent));
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
  const split: TypeUnits = { units: {}, packageOptions: {} };
  const visit = (ns: protobuf.Namespace): void => {
    if (ns !== root && ns.options !== undefined) split.packageOptions[fullName(ns)] = ns.options;
    for (const object of ns.nestedArray) {
      if (isPackage(object)) {
        visit(object as protobuf.Namespace);
        continue;
      }
      const name = fullName(object);
      const needs = new Set<string>();
      named(object, needs);
      needs.delete(name);
      split.units[name] = {
        package: fullName(ns),
        json: object.toJSON(),
        needs: [...needs].sort(),
      };
    }
  };
  visit(root);
  return split;
}

interface FeatureResolving {
  _edition?: unknown;
  /** protobufjs 7.5 on; an older one has no features to work out. */
  _resolveFeaturesRecursive?: (edition: unknown) => void;
}

/**
 * A root whose units are added when first looked up (run time). protobufjs works out what a
 * proto3 file's syntax means for each field (its "features") once per object; that is done
 * for what was added, after each lookup that added some.
 */
export function lazyRoot({ units, packageOptions }: TypeUnits): protobuf.Root {
  const root = new protobuf.Root();
  const pending = new Map(Object.entries(units));
  const features = root as unknown as FeatureResolving;

  const defined = new Set<string>();
  const definePackage = (name: string): protobuf.Namespace => {
    if (name === '') return root;
    const ns = root.define(name);
    const options = packageOptions[name];
    if (!defined.has(name) && options) ns.setOptions(options);
    defined.add(name);
    return ns;
  };
  const add = (name: string): void => {
    const unit = pending.get(name);
    if (unit === undefined) return;
    pending.delete(name);
    const ns = definePackage(unit.package);
    ns.addJSON({ [name.slice(name.lastIndexOf('.') + 1)]: unit.json });
    for (const needed of unit.needs) add(needed);
  };
  const load = (names: Iterable<string>): void => {
    for (const name of names) add(name);
    features._resolveFeaturesRecursive?.(features._edition);
  };
  /** The unit holding `path` (a full name): the longest unit name it starts with. */
  const ensure = (path: string | string[]): void => {
    if (pending.size === 0) return;
    const parts = (Array.isArray(path) ? path : path.split('.')).filter((p) => p !== '');
    for (let n = parts.length; n > 0; n--) {
      const name = parts.slice(0, n).join('.');
      if (pending.has(name)) return load([name]);
      if (units[name]) return; // loaded already
    }
  };
  const loadAll = (): void => {
    if (pending.size > 0) load([...pending.keys()]);
    for (const name of Object.keys(packageOptions)) definePackage(name); // options alone
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
