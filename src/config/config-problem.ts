import type { z } from 'zod';

/**
 * One thing wrong with a configuration: the setting's path (`counterparties.2.mail`) and
 * what is wrong with it, saying what to do. Every check — the schema, the checks across
 * settings, the files named — gives its findings in this form, so that one run lists
 * them all together, sorted by path.
 */
export interface ConfigProblem {
  readonly path: string;
  readonly problem: string;
}

/** The text of CONFIG_INVALID: the source, then one `path: problem` line each, sorted by path, without repeats. */
export function formatConfigProblems(source: string, problems: readonly ConfigProblem[]): string {
  const lines = [...problems].sort((a, b) => comparePaths(a.path, b.path)).map(({ path, problem }) => `  ${path}: ${problem}`);
  return `${source}:\n${[...new Set(lines)].join('\n')}`;
}

/** Zod's findings as problems: an unknown setting is named by its own path, a missing one is called required. */
export function schemaProblems(issues: readonly z.core.$ZodIssue[]): ConfigProblem[] {
  return issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key].join('.'), problem: 'not a setting (config/example.yaml lists every setting)' }));
    }
    return [{ path: path.join('.') || '(root)', problem: issue.message }];
  });
}

/** For safeParse: a setting that is missing says so, instead of "expected string, received undefined". */
export function requiredSettingMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.input !== undefined) return undefined;
  if (issue.code === 'invalid_type') return `required (${issue.expected})`;
  if (issue.code === 'invalid_value') return `required: one of ${issue.values.map(String).join(', ')}`;
  return undefined;
}

/** Segment by segment, list indices as numbers: counterparties.2 before counterparties.10. */
function comparePaths(a: string, b: string): number {
  const left = a.split('.');
  const right = b.split('.');
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    const x = left[index]!;
    const y = right[index]!;
    if (x === y) continue;
    const numbers = /^\d+$/.test(x) && /^\d+$/.test(y);
    if (numbers) return Number(x) - Number(y);
    return x < y ? -1 : 1;
  }
  return left.length - right.length;
}
