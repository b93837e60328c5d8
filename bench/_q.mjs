import { generateCorpus, generateQueries, FIXED_NOW_MS } from "./corpus.mjs";
import { MemoryStore } from "/work/main/js/dist/index.js";
const { docs } = generateCorpus(10000);
const queries = generateQueries(docs, 300);
const store = await MemoryStore.open({ storage: "memory", searchMode: "lexical", clock: () => FIXED_NOW_MS });
for (let s = 0; s < docs.length; s += 5000) await store.rememberMany(docs.slice(s, s + 5000).map((d, i) => ({ id: String(s + i), text: d.text, createdAt: FIXED_NOW_MS })));
const t0 = performance.now();
const times = [];
for (let rep = 0; rep < 5; rep++) for (const q of queries) { const a = performance.now(); await store.recall(q.text, { limit: 10 }); times.push(performance.now() - a); }
times.sort((a, b) => a - b);
console.log("p50", times[times.length >> 1].toFixed(3), "p95", times[Math.floor(times.length * 0.95)].toFixed(3), "total", (performance.now() - t0).toFixed(0));
