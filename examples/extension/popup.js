// The popup: remembers the selected text (or what you type) and recalls, showing each result's
// stage and score and each stage's hits and time. It only talks to the service worker.
const $ = (id) => document.getElementById(id);

/** Sends a message to the service worker; an `{ error }` reply becomes a thrown Error with its code. */
async function ask(message) {
  let reply;
  try {
    reply = await chrome.runtime.sendMessage(message);
  } catch {
    // Chrome stopped the service worker before it answered: ask once more (a remember carries
    // its own id, so asking again cannot store it twice).
    reply = await chrome.runtime.sendMessage(message).catch((e) => ({
      error: { code: "closed", message: `the extension's background did not answer (${e?.message ?? e})` },
    }));
  }
  if (reply?.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
  return reply;
}

function status(text, isError = false) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

/** The active tab's selected text, if the popup was opened over a page that allows scripts. */
async function selectedText() {
  try {
    const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
    if (!tab?.id) return "";
    const [frame] = await chrome.scripting.executeScript({ target: { tabId: tab.id }, func: () => String(getSelection()) });
    return frame?.result?.trim() ?? "";
  } catch {
    return ""; // chrome:// pages, the web store, or no activeTab grant: type instead
  }
}

function showResult({ results, stages }) {
  const list = $("results");
  list.replaceChildren(...results.map((hit) => {
    const li = document.createElement("li");
    const meta = document.createElement("div");
    meta.className = "meta";
    meta.textContent = `${hit.stage} · score ${hit.score.toFixed(3)}`;
    li.append(hit.text, meta);
    return li;
  }));
  const body = $("stages").tBodies[0];
  body.replaceChildren(...stages.map((s) => {
    const tr = document.createElement("tr");
    for (const cell of [s.name, String(s.hits), s.ms.toFixed(2), s.skipped ? `skipped: ${s.reason}` : ""]) {
      const td = document.createElement("td");
      td.textContent = cell;
      tr.append(td);
    }
    return tr;
  }));
  $("stages").hidden = false;
  status(results.length ? `${results.length} found` : "nothing found");
}

$("remember").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const id = crypto.randomUUID();
    try {
      await ask({ type: "remember", id, text: $("text").value });
    } catch (e) {
      // The first ask stored it and the worker stopped before answering: the retry finds it.
      if (e.code !== "already_exists") throw e;
    }
    $("text").value = "";
    status(`remembered (${id})`);
  } catch (e) {
    status(`${e.code ?? "error"}: ${e.message}`, true);
  }
});

$("recall").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    showResult(await ask({ type: "recall", query: $("query").value, limit: 5 }));
  } catch (e) {
    status(`${e.code ?? "error"}: ${e.message}`, true);
  }
});

selectedText().then((text) => {
  if (text && !$("text").value) $("text").value = text;
});
