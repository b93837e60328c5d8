// A writer that goes away without announcing its last batches (store-gone-writer.html): its
// change notices are dropped before they are posted, as when a tab is closed between its
// transaction's commit and its `complete` event. Its presence hello still goes out.
import { MemoryStore } from "/js/dist/index.js";

const post = BroadcastChannel.prototype.postMessage;
BroadcastChannel.prototype.postMessage = function (data) {
  if (Array.isArray(data?.keys)) return; // the adapter's "these keys changed", lost
  post.call(this, data);
};

self.onmessage = async ({ data: { name, snapshots, prefix, forget } }) => {
  try {
    const store = await MemoryStore.open({ name, snapshots });
    await store.remember({ id: `${prefix}0`, text: `${prefix} kayak trip on the lake` });
    await store.rememberMany([1, 2, 3, 4].map((i) => ({ id: `${prefix}${i}`, text: `${prefix} note ${i} about the kayak` })));
    if (forget !== undefined) await store.forget(forget);
    await store.addNote({ id: `${prefix}-note`, period: "daily", start: Date.UTC(2026, 0, 5), text: `${prefix} paddled` });
    self.postMessage({ ok: true });
    // Never closed: the page terminates this worker, so its locks go with it.
  } catch (e) {
    self.postMessage({ ok: false, error: String(e?.stack ?? e) });
  }
};
