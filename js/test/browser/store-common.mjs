// Helpers of the MemoryStore browser pages (store-*.html): deterministic data, a digest of
// everything a store shows, and the page protocol (window.__done = { ok, details }).
export const NOW = Date.parse("2026-06-01T12:00:00Z");
export const DAY = 86_400_000;
export const DIMS = 16;
const WORDS = ["garden", "database", "meeting", "deploy", "budget", "coffee", "travel", "design", "review", "music"];

/** A deterministic embedding; some carry -0 and a denormal, which must survive bit for bit. */
export function vec(i) {
  const v = new Float32Array(DIMS);
  for (let j = 0; j < DIMS; j++) v[j] = Math.fround(Math.sin(i * 7.1 + j * 1.3) + (j === i % DIMS ? 1.5 : 0));
  if (i % 3 === 0) v[DIMS - 1] = -0;
  if (i % 5 === 0) v[1] = 1.401298464324817e-45;
  return v;
}

/** `n` memories with ids `${prefix}${i}`, every other one with an embedding. */
export function memories(prefix, n, offset = 0) {
  return Array.from({ length: n }, (_, k) => {
    const i = k + offset;
    return {
      id: `${prefix}${i}`, text: `${WORDS[i % 10]} ${WORDS[(i * 3) % 10]} ${prefix} note ${i}`, topic: i % 2 ? "work" : "home",
      createdAt: NOW - i * 3_600_000, ...(i % 2 === 0 ? { embedding: vec(i) } : {}),
    };
  });
}

/** Writes every kind of record, with updates, deletes and recall tracking. */
export async function writeEverything(store) {
  await store.rememberMany(memories("m", 40));
  await store.remember({ id: "solo", text: "Le jardin est magnifique", textEn: "The garden is beautiful", embedding: vec(99) });
  await store.update("m3", { text: "the garden needs water", embedding: vec(103) });
  await store.forget("m5");
  await store.recall("garden", { now: NOW, embedding: vec(3) });
  await store.addNote({ id: "n1", period: "daily", start: NOW - DAY, text: "We planned the garden.\n\nThe database migration is next." });
  await store.addEntity({ name: "Alice", type: "person", aliases: ["Ali"] });
  await store.relate({ from: "Alice", relation: "worksOn", to: "Garden Project", strength: 0.8, memoryIds: ["m1"] });
  await store.relate({ from: "Bob", relation: "knows", to: "Alice" });
}

const bits = (f32) => (f32 === undefined ? null : Array.from(new Uint32Array(f32.buffer, f32.byteOffset, f32.length)));
const hex = (u8) => (u8 === undefined ? null : Array.from(u8, (b) => b.toString(16).padStart(2, "0")).join(""));

/** Everything a store shows (embeddings as raw bits) plus recall answers, as one JSON string. */
export async function digest(store) {
  const ids = await store.ids();
  const rows = [];
  for (const id of ids) rows.push([await store.get(id), bits(await store.getEmbedding(id)), hex(await store.getSignature(id))]);
  const recalls = [];
  for (const q of ["garden", "database meeting", "alice", "note"]) {
    recalls.push((await store.recall(q, { now: NOW, trackRecalls: false, embedding: vec(3), limit: 20 })).results);
  }
  return JSON.stringify({ ids, rows, notes: await store.notes(), entities: await store.entities(), edges: await store.edges(), recalls });
}

/** Runs `body(details)` and reports through window.__done. */
export async function run(body) {
  const details = [];
  try {
    await body(details);
    window.__done = { ok: true, details };
  } catch (e) {
    window.__done = { ok: false, details: [...details, String(e?.stack ?? e)] };
  }
}

export function check(condition, message) {
  if (!condition) throw new Error(message);
}
