// The extension's service worker holds the store: one MemoryStore in IndexedDB (not
// chrome.storage), opened on the first message after the worker starts. Any page of the
// extension (the popup, an options page, a side panel) asks it with chrome.runtime.sendMessage:
//   { type: "remember", text, id?, topic? } -> { id }
//   { type: "recall", query, limit? }   -> the recall result: { results, stages }
//   errors                              -> { error: { code, message } }
import { MemoryStore, RecallError } from "./recallkit/js/dist/index.js";

const STORE_NAME = "extension-memories";
const DEFAULT_LIMIT = 5;

/** The one open of the store, shared by every message; cleared when it fails, so the next message retries. */
let opening;

function store() {
  opening ??= MemoryStore.open({ name: STORE_NAME }).catch((e) => {
    opening = undefined;
    throw e;
  });
  return opening;
}

async function handle(message) {
  switch (message?.type) {
    case "remember": {
      const memory = { text: message.text };
      if (message.id) memory.id = message.id;
      if (message.topic) memory.topic = message.topic;
      return { id: await (await store()).remember(memory) };
    }
    case "recall":
      return (await store()).recall(message.query, { limit: message.limit ?? DEFAULT_LIMIT });
    default:
      throw new RecallError("invalid_argument", `unknown message type ${JSON.stringify(message?.type)}`);
  }
}

// MV3: the listener must be registered synchronously, at the top level, so a message that
// wakes the worker finds it; returning true keeps sendResponse open for the async reply.
chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  if (sender.id !== chrome.runtime.id) return false;
  handle(message).then(sendResponse, (e) => {
    sendResponse({ error: { code: e instanceof RecallError ? e.code : "internal", message: String(e?.message ?? e) } });
  });
  return true;
});
