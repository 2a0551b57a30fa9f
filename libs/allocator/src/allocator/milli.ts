/**
 * Quantities in integer thousandths (as `Resources.scalarMilli()` gives them), role paths, and
 * the conversions from what callers pass in: the small arithmetic every stage shares.
 */
import { AllocatorError } from './types';
import type { Quantities } from './trace';

export const EMPTY_MILLI: ReadonlyMap<string, number> = new Map();
export const NONE: readonly string[] = [];

/** Minimum allocatable quantity sets, in milli (a set is met when every amount in it is). */
export type MinAllocatable = Array<Array<[string, number]>>;

export const topLevel = (role: string): string => {
  const i = role.indexOf('/');
  return i < 0 ? role : role.slice(0, i);
};

export const ancestorsAndSelf = (role: string): string[] => {
  const parts = role.split('/');
  return parts.map((_, i) => parts.slice(0, i + 1).join('/'));
};

export function milliToQuantities(m: ReadonlyMap<string, number>): Quantities {
  const out: Quantities = {};
  for (const [k, v] of m) if (v !== 0) out[k] = v / 1000;
  return out;
}

export function quantitiesToMilli(q: Readonly<Record<string, number>> | ReadonlyMap<string, number>, what: string): Map<string, number> {
  const out = new Map<string, number>();
  const items: Array<[string, unknown]> = q instanceof Map ? [...(q as ReadonlyMap<string, number>)] : Object.entries(q);
  for (const [name, value] of items) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new AllocatorError('INVALID_ARGUMENT', `${what}: '${name}' must be a non-negative number`);
    }
    const m = Math.round(value * 1000);
    if (m > 0) out.set(name, m);
  }
  return out;
}

export function addMilli(into: Map<string, number>, q: ReadonlyMap<string, number>, sign = 1): void {
  for (const [k, v] of q) {
    const next = (into.get(k) ?? 0) + sign * v;
    if (next === 0) into.delete(k);
    else into.set(k, next);
  }
}

/** Minimum allocatable quantity sets in integer thousandths. */
export function minAllocatableToMilli(sets: Array<Record<string, number>>): MinAllocatable {
  return sets.map((set) => Object.entries(set).map(([name, min]): [string, number] => [name, Math.round(min * 1000)]));
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seedable uniform generator in [0, 1) for reproducible agent order. */
export function seededRandom(seed: number): () => number {
  return mulberry32(seed);
}
