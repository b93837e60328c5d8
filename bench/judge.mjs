// Whether a worker's result is trustworthy: the rule that marks a contender BROKEN, in one
// place, so bench/run.mjs can re-apply it to saved results (--from-json) exactly as the worker did.

/** Fewest exact queries for "exact-query hit@10 is 0" to mean broken rather than a small sample. */
export const MIN_EXACT_QUERIES = 10;

/**
 * Sets result.status to "ok" or "broken" (with the reasons) for a result that measured queries:
 * broken when the canary is not the top hit (before or after reopening), or when no exact query
 * found its source among at least MIN_EXACT_QUERIES. A smaller sample (a worker stopped by its
 * time budget) only adds a warning.
 */
export function judge(result) {
  if (!result.queries || !result.canary) return result;
  const problems = [];
  const warnings = [];
  if (!result.canary.ok) problems.push(`canary top id ${result.canary.got}, expected ${result.canary.expected}`);
  if (result.openCanary && !result.openCanary.ok) problems.push(`after reopen, canary top id ${result.openCanary.got}`);
  const exact = result.queries.perClass.exact;
  if (!(exact.hit10 > 0)) {
    if (exact.count >= MIN_EXACT_QUERIES) problems.push("exact-query hit@10 is 0");
    else warnings.push(`exact-query hit@10 is 0 on only ${exact.count} exact queries (time budget): too few to judge`);
  }
  result.status = problems.length ? "broken" : "ok";
  result.reason = problems.length ? problems.join("; ") : undefined;
  result.warning = warnings.length ? warnings.join("; ") : undefined;
  return result;
}
