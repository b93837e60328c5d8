// The worker of worker.html: serves recallkit stores to the page (recallkit/worker).
import { serveStore } from "/js/dist/worker.js";

serveStore();
