// Rounds: the same contender × N measured several times, each in a fresh worker process, with
// the other contenders' workers in between (run.mjs runs the whole list, then again), merged
// into one result whose figures are the medians over the rounds.
//
// Why: this machine's speed moves by a third from one minute to the next (shared cores), so a
// ratio of two contenders measured minutes apart moved with it: three full runs of one commit
// gave recallkit's 1k build 1.77×, 2.04× and 1.96× of MiniSearch's. In rounds, each
// contender meets the slow and the fast minutes alike, and the median takes the middle.

/** Median of numbers (the mean of the middle two for an even count). */
function median(values) {
  const s = values.slice().sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * One value from the rounds' values at the same place: numbers by their median (timings,
 * memory, sizes; deterministic figures such as hit@10 are equal in every round), booleans by
 * "all true" (a canary must pass in every round), objects field by field, anything else
 * (strings, arrays such as per-query ranks or build times) from the first round.
 */
function mergeValues(values) {
  const first = values[0];
  if (typeof first === "number" && values.every((v) => typeof v === "number" && Number.isFinite(v))) return median(values);
  if (typeof first === "boolean" && values.every((v) => typeof v === "boolean")) return values.every(Boolean);
  if (first && typeof first === "object" && !Array.isArray(first) && values.every((v) => v && typeof v === "object" && !Array.isArray(v))) {
    const out = {};
    for (const key of Object.keys(first)) out[key] = mergeValues(values.map((v) => v[key]));
    return out;
  }
  return first;
}

/**
 * The result of one contender × N from its rounds' results (in round order). Rounds that did
 * not finish ("error") are left out while another did; a round judged "broken" makes the
 * merged result that round's (its reasons stand, and its figures never count towards a
 * target). Rounds that measured a different number of queries (a time budget stopping them at
 * different points) are left out, so the quality figures and per-query ranks stay those of one
 * query set. `rounds` records how many rounds were merged and each one's build and query p50.
 */
export function mergeRounds(results) {
  if (results.length === 1) return results[0];
  const broken = results.find((r) => r.status === "broken");
  if (broken) return { ...broken, rounds: roundSummary(results) };
  const finished = results.filter((r) => r.status === "ok");
  if (finished.length === 0) return { ...results[0], rounds: roundSummary(results) };
  const measured = finished[0].queries?.measured;
  const same = finished.filter((r) => r.queries?.measured === measured);
  const merged = mergeValues(same);
  // A rate follows from the merged time rather than being a median of its own.
  if (merged.buildMs > 0) merged.docsPerSec = merged.n / (merged.buildMs / 1000);
  merged.rounds = roundSummary(results, same.length);
  return merged;
}

function roundSummary(results, merged = 0) {
  return {
    count: results.length,
    merged,
    buildMs: results.map((r) => r.buildMs ?? null),
    queryP50Ms: results.map((r) => r.queries?.all?.p50Ms ?? null),
    status: results.map((r) => r.status),
  };
}
