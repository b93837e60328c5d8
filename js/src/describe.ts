/**
 * {@link describeQuery}: what a recall's question became, in one line, for a person reading the
 * answer (the demo page shows it above the results, the CLI prints it before the stages).
 * Presentation only: it reads the answer's `query` and `timeWindow` and decides nothing.
 * @module
 */
import { RecallError } from "./errors.js";
import type { RecallResult } from "./types.js";

/** The earliest `Date`, where the window of `before X` starts: shown as an open start. */
const EARLIEST_MS = -8.64e15;

/** `ms` as `YYYY-MM-DD`, read `utcOffsetMinutes` east of UTC. */
function day(ms: number, utcOffsetMinutes: number): string {
  return new Date(ms + utcOffsetMinutes * 60_000).toISOString().slice(0, 10);
}

/**
 * The resolved question of a recall as one line, or `undefined` when nothing was read out of
 * it (no time words, no pronoun):
 *
 * ```text
 * "what did Alice decide?" (she → Alice; "yesterday?" → 2024-03-14)
 * "what did she order?" (she: ambiguous, Carol or Dan)
 * "is the office open on Saturday?" ("on Saturday?": no window, it held nothing)
 * ```
 *
 * A window of several days reads `2024-03-04 to 2024-03-10`, one of `before X` `… to 2024-02-29`; days are read at
 * `utcOffsetMinutes` (the recall's `context.utcOffsetMinutes`; default UTC). An empty search
 * text (only time words and stopwords) reads `(the window's memories)`.
 */
export function describeQuery(result: Pick<RecallResult, "query" | "timeWindow">, utcOffsetMinutes = 0): string | undefined {
  if (typeof result !== "object" || result === null) {
    throw new RecallError("invalid_argument", `describeQuery takes a recall result, got ${result === null ? "null" : typeof result}`);
  }
  if (typeof utcOffsetMinutes !== "number" || !Number.isFinite(utcOffsetMinutes)) {
    throw new RecallError("invalid_argument", `utcOffsetMinutes must be a finite number, got ${String(utcOffsetMinutes)}`);
  }
  const q = result.query;
  if (q === undefined) return undefined;
  const parts: string[] = [];
  for (const p of q.pronouns ?? []) {
    parts.push(p.entity !== undefined ? `${p.pronoun} → ${p.entity}` : `${p.pronoun}: ambiguous, ${(p.ambiguous ?? []).join(" or ")}`);
  }
  if (q.resolvedFrom !== undefined) {
    const words = JSON.stringify(q.resolvedFrom);
    const w = result.timeWindow;
    if (q.windowDropped === true) {
      parts.push(`${words}: no window, it held nothing`);
    } else if (w !== undefined) {
      // West of UTC, the earliest `Date` shifted to local time is no `Date` at all.
      const from = w.start === undefined || w.start <= EARLIEST_MS ? "…" : day(w.start, utcOffsetMinutes);
      const to = w.end === undefined ? "…" : day(w.end, utcOffsetMinutes);
      parts.push(`${words} → ${from === to ? from : `${from} to ${to}`}`);
    }
  }
  const searched = q.searchText === "" ? "(the window's memories)" : JSON.stringify(q.searchText);
  return parts.length === 0 ? searched : `${searched} (${parts.join("; ")})`;
}
