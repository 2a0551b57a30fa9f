/**
 * The schema's entities. Each module declares the entities it owns beside its `@Module`
 * (`@OwnsEntities(AgentEntity)`); the composition root (src/app.module.ts) gathers them from the
 * modules it is built of with entitiesOf, and the data source and the migrations generated from
 * it take that list. This folder names no module: they register with it.
 */
import { MODULE_METADATA } from '@nestjs/common/constants';

/** An entity class (TypeORM reads its decorators). */
export type EntityClass = abstract new (...args: never[]) => unknown;

const owned = new WeakMap<object, EntityClass[]>();

/** Declares the entities a Nest module owns. */
export function OwnsEntities(...entities: EntityClass[]): ClassDecorator {
  return (module) => {
    owned.set(module, entities);
  };
}

/** The entities of the modules and of every module they import, each once, in the order met. */
export function entitiesOf(modules: readonly unknown[]): EntityClass[] {
  const seen = new Set<unknown>();
  const found = new Set<EntityClass>();
  const visit = (entry: unknown): void => {
    if (entry === null || entry === undefined || seen.has(entry)) return;
    seen.add(entry);
    const ref = (entry as { forwardRef?: () => unknown }).forwardRef;
    if (typeof ref === 'function') {
      visit(ref());
      return;
    }
    // A module class, or a dynamic module ({ module, imports }).
    const dynamic = typeof entry === 'object' ? (entry as { module?: object; imports?: unknown[] }) : undefined;
    const module = dynamic ? dynamic.module : entry;
    if (module === undefined) return;
    for (const entity of owned.get(module) ?? []) found.add(entity);
    const imports = (Reflect.getMetadata(MODULE_METADATA.IMPORTS, module) ?? []) as unknown[];
    for (const child of [...imports, ...(dynamic?.imports ?? [])]) visit(child);
  };
  for (const module of modules) visit(module);
  return [...found];
}
