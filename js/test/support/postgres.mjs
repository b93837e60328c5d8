// A throwaway PostgreSQL cluster for tests and the service bench: initdb into a temporary
// directory, a server listening only on a unix socket in that directory (no TCP port, so
// clusters of parallel test files and other users of the machine never collide), stopped by
// its own pid. Uses Debian's binaries (/usr/lib/postgresql/<version>/bin) or those on PATH.
// As root (CI), the server runs as the `postgres` user, since initdb refuses root.
//
//   const pg = await startCluster("adapters");   // undefined (and pgMissing says why) without PostgreSQL
//                                                 // (or with RECALLKIT_SKIP_POSTGRES=1, to see the skip)
//   pg.config       -> { host: <socket dir>, port, user: "postgres", database: "postgres" }
//   await pg.createDatabase("other"); pg.configFor("other")
//   await pg.stop();
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The directory holding initdb, pg_ctl and postgres, or undefined. */
export function findPostgresBin() {
  const base = "/usr/lib/postgresql";
  if (existsSync(base)) {
    const versions = readdirSync(base).filter((v) => existsSync(join(base, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return join(base, versions[0], "bin");
  }
  const which = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" });
  const found = which.stdout.trim();
  return which.status === 0 && found !== "" ? join(found, "..") : undefined;
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function pgMissing() {
  if (process.env.RECALLKIT_SKIP_POSTGRES) return "RECALLKIT_SKIP_POSTGRES is set";
  if (findPostgresBin() === undefined) return "PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or on PATH; apt-get install postgresql)";
  const asRoot = process.getuid?.() === 0;
  if (asRoot && spawnSync("id", ["-u", "postgres"]).status !== 0) return "running as root and there is no postgres user to run the server";
  return undefined;
}

const PORT = 5432; // only names the socket file inside the cluster's own directory

/** Starts a cluster (see the module comment); undefined when pgMissing() says why not. */
export async function startCluster(label = "test", { settings = [] } = {}) {
  if (pgMissing() !== undefined) return undefined;
  const bin = findPostgresBin();
  const dir = mkdtempSync(join(tmpdir(), `rk-pg-${label}-`));
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  const run = (cmd, args) => {
    const full = join(bin, cmd);
    return asRoot
      ? execFileSync("runuser", ["-u", "postgres", "--", full, ...args], { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" })
      : execFileSync(full, args, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  };
  if (asRoot) execFileSync("chown", ["postgres", dir]);
  chmodSync(dir, 0o755);
  const user = asRoot ? "postgres" : (process.env.USER ?? "postgres");
  run("initdb", ["-D", data, "-A", "trust", "-U", user, "-E", "UTF8", "--locale=C", "--no-sync"]);
  const options = ["-c listen_addresses=''", `-k ${dir}`, `-p ${PORT}`, "-c max_connections=200", ...settings.map((s) => `-c ${s}`)].join(" ");
  run("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "server.log"), "-w", "-t", "60", "start"]);
  const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  const configFor = (database) => ({ host: dir, port: PORT, user, database });
  const psql = (sql, database = "postgres") => execFileSync("psql", ["-h", dir, "-p", String(PORT), "-U", user, "-d", database, "-v", "ON_ERROR_STOP=1", "-qAtc", sql], { encoding: "utf8" });
  let stopped = false;
  // A test process that ends without calling stop() (a crash, a failed before()) still stops its
  // server: SIGINT is PostgreSQL's fast shutdown. The directory then stays behind in tmpdir.
  const onExit = () => { if (!stopped) try { process.kill(pid, "SIGINT"); } catch { /* gone */ } };
  process.once("exit", onExit);
  return {
    dir,
    pid,
    config: configFor("postgres"),
    configFor,
    /** postgres:// URI of a database (the socket directory as host). */
    uriFor: (database = "postgres") => `postgresql://${user}@${encodeURIComponent(dir)}:${PORT}/${database}`,
    psql,
    async createDatabase(name) {
      psql(`CREATE DATABASE "${name}"`);
      return configFor(name);
    },
    log: () => readFileSync(join(dir, "server.log"), "utf8"),
    async stop() {
      if (stopped) return;
      stopped = true;
      process.removeListener("exit", onExit);
      try {
        run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "30", "stop"]);
      } catch {
        try { process.kill(pid, "SIGQUIT"); } catch { /* already gone */ }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
