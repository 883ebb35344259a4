import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { createServer, type AddressInfo } from "node:net";
import { createServer as createHttpServer } from "node:http";

/**
 * The MCP reference server (@modelcontextprotocol/server-everything, Streamable HTTP) as a child
 * process on a fixed port, so a test can stop it, start it again on the same port (a restart: every
 * session is gone) or kill it while a request is in flight. Reached from workerd over 127.0.0.1;
 * controlled over HTTP because tests in workerd cannot spawn processes:
 *   POST /start            start it (no-op when running); answers once it listens
 *   POST /stop             kill it; answers once it has exited
 *   POST /kill-on-post     arm: kill it as soon as its next POST arrives (a request lost mid-call)
 *   GET  /state            { running }
 */
export interface EverythingServer {
  /** The MCP endpoint, http://127.0.0.1:<port>/mcp. */
  url: string;
  /** Base URL of the control endpoints above. */
  control: string;
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 15_000;
const require = createRequire(import.meta.url);
const ENTRY = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export async function startEverything(): Promise<EverythingServer> {
  const port = await freePort();
  let child: { process: ChildProcess; exited: Promise<void> } | undefined;
  let killOnPost = false;

  /** Spawns the server and resolves when it says it listens; rejects if it exits or stays silent. */
  async function start(): Promise<void> {
    if (child && !child.process.killed) return;
    await child?.exited; // killed (e.g. by an armed kill) but not gone yet: the port is still taken
    const process_ = spawn(process.execPath, [ENTRY, "streamableHttp"], {
      // Only what it needs: its get-env tool answers its whole environment.
      env: { PATH: process.env.PATH ?? "", PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<void>((resolve) => process_.once("exit", () => resolve()));
    const current = { process: process_, exited };
    child = current;
    void exited.then(() => {
      if (child === current) child = undefined;
    });
    // Its stdout logs one line per POST; an armed kill fires on the first one.
    process_.stdout!.setEncoding("utf8").on("data", (text: string) => {
      if (killOnPost && text.includes("Received MCP POST request")) {
        killOnPost = false;
        process_.kill("SIGKILL");
      }
    });
    await new Promise<void>((resolve, reject) => {
      let log = "";
      const timer = setTimeout(
        () => fail(new Error(`server-everything did not listen within ${START_TIMEOUT_MS} ms: ${log}`)),
        START_TIMEOUT_MS,
      );
      const fail = (error: Error) => {
        clearTimeout(timer);
        process_.kill("SIGKILL");
        reject(error);
      };
      process_.stderr!.setEncoding("utf8").on("data", (text: string) => {
        log += text;
        if (log.includes(`listening on port ${port}`)) {
          clearTimeout(timer);
          resolve();
        }
      });
      void exited.then(() => fail(new Error(`server-everything exited before listening: ${log}`)));
    });
  }

  async function stop(): Promise<void> {
    const current = child;
    if (!current) return;
    current.process.kill("SIGKILL");
    await current.exited;
  }

  const control = createHttpServer((req, res) => {
    const route = `${req.method} ${new URL(req.url ?? "/", "http://127.0.0.1").pathname}`;
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    // A killed process counts as stopped at once: its sockets close only after the kill.
    const state = () => ({ running: child !== undefined && !child.process.killed });
    const answer = (work: Promise<void>) =>
      work.then(
        () => send(200, state()),
        (error: unknown) => send(500, { error: String(error) }),
      );
    if (route === "POST /start") return void answer(start());
    if (route === "POST /stop") return void answer(stop());
    if (route === "POST /kill-on-post") return void answer(Promise.resolve(void (killOnPost = true)));
    if (route === "GET /state") return send(200, state());
    send(404, { error: `no route ${route}` });
  });
  await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));
  // If the test run dies without its teardown, the child must not outlive it.
  const killChild = () => child?.process.kill("SIGKILL");
  process.once("exit", killChild);

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    control: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    close: async () => {
      killOnPost = false;
      await stop();
      process.off("exit", killChild);
      control.closeAllConnections();
      await new Promise<void>((resolve) => control.close(() => resolve()));
    },
  };
}
