// Waiting for something another connection or process does.

/** Waits until `check()` (sync or async) is truthy, checked every 10 ms; throws naming `what` after `ms`. */
export async function eventually(check, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
