// Assertions that a call fails with a RecallError of a given code. Imported by tests; it
// defines no test itself.
import assert from "node:assert/strict";
import { RecallError } from "../../dist/errors.js";

/** Checks that `e` is a RecallError with `code` and, when given, a message matching `pattern`. */
function isRecallError(e, code, pattern) {
  assert.ok(e instanceof RecallError, `expected RecallError, got ${e?.stack ?? e}`);
  assert.equal(e.code, code, e.message);
  if (pattern) assert.match(e.message, pattern);
  return true;
}

/** Asserts that `promiseOrFn` (a promise, or a function returning one) rejects with a RecallError of `code`. */
export async function rejectsWith(promiseOrFn, code, pattern) {
  await assert.rejects(promiseOrFn, (e) => isRecallError(e, code, pattern));
}

/** Asserts that `fn` throws a RecallError of `code` synchronously. */
export function throwsWith(fn, code, pattern) {
  assert.throws(fn, (e) => isRecallError(e, code, pattern));
}
