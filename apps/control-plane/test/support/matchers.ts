/**
 * Jest's asymmetric matchers as `unknown` (its global types declare them `any`), so expected
 * objects built with them stay typed.
 */
export const anyOf = (type: unknown): unknown => expect.any(type);
export const stringContaining = (text: string): unknown => expect.stringContaining(text);
export const stringMatching = (pattern: string | RegExp): unknown => expect.stringMatching(pattern);
export const objectContaining = (object: Record<string, unknown>): unknown => expect.objectContaining(object);
export const arrayContaining = (items: unknown[]): unknown => expect.arrayContaining(items);
export const anything = (): unknown => expect.anything();
