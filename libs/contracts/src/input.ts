/**
 * The one gate every input passes before its schema: REST bodies, query strings and paths, and
 * socket messages. It refuses what no schema should have to think about and what could hurt
 * the code behind the schemas: text PostgreSQL cannot store (U+0000), text that is not valid
 * UTF-16 (a lone surrogate, which no encoder can write as UTF-8), and nesting deep enough to
 * overflow a recursive validator's stack.
 */

/** Deepest nesting of objects and arrays accepted (the deepest real message nests about 8). */
const MAX_INPUT_DEPTH = 32;

export interface InputProblem {
  /** Where: `tasks.3.name`, `(input)` for the value itself. */
  path: string;
  message: string;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The problem of one string, if any: a NUL character or a lone UTF-16 surrogate. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (it holds a lone UTF-16 surrogate)';
  return undefined;
}

/**
 * The first problem of a parsed JSON value (walked without recursion, so no depth of input can
 * overflow the stack): a string or an object key that `textProblem` refuses, or objects and
 * arrays nested deeper than `maxDepth`. Undefined when the value is clean.
 */
export function inputProblem(value: unknown, options: { maxDepth?: number } = {}): InputProblem | undefined {
  const maxDepth = options.maxDepth ?? MAX_INPUT_DEPTH;
  const stack: Array<{ value: unknown; path: readonly PropertyKey[] }> = [{ value, path: [] }];
  const at = (path: readonly PropertyKey[]) => (path.length ? path.map(String).join('.') : '(input)');
  while (stack.length) {
    const { value: v, path } = stack.pop() as { value: unknown; path: readonly PropertyKey[] };
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return { path: at(path), message: problem };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= maxDepth) return { path: at(path), message: `nests deeper than ${maxDepth} levels of objects and arrays` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...path, i] });
      continue;
    }
    const entries = Object.entries(v as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i];
      const problem = textProblem(key);
      if (problem)
        return { path: at([...path, key.replaceAll('\u0000', '\uFFFD').replace(/[\uD800-\uDFFF]/g, '\uFFFD')]), message: `key ${problem}` };
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}
