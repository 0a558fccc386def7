// The liveness metrics `kiln stats` prints, and their quartiles.
/** The metrics of `kiln stats --live`, each with the line that explains it. */
export type LiveMetric = 'statements' | 'liveStatements' | 'liveShare' | 'steps' | 'liveFunctionShare';
export const LIVE_METRICS: readonly LiveMetric[] = [
  'statements',
  'liveStatements',
  'liveShare',
  'steps',
  'liveFunctionShare',
];
export const LIVE_DESCRIPTIONS: Record<LiveMetric, string> = {
  statements: 'statements of the test code (every function but main)',
  liveStatements: 'of them executed at least once',
  liveShare: 'liveStatements / statements',
  steps: "statements executed + loop iterations (the interpreter's steps)",
  liveFunctionShare: 'functions entered at least once',
};

/** First quartile, median and third quartile (nearest rank). */
export function quartiles(xs: readonly number[]): { q1: number; median: number; q3: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => (s.length ? s[Math.round(q * (s.length - 1))]! : 0);
  return { q1: at(0.25), median: at(0.5), q3: at(0.75) };
}
