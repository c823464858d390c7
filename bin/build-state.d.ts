/** Whether the compiled build in <root>/dist is at least as new as every source file (true without sources). */
export function buildIsCurrent(root: string): boolean;
