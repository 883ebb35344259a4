import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";

/**
 * What the package suites share: commands run in a project folder outside the repository, as its
 * owner runs them, on this process's Node (the project's Node 22, which wrangler needs) and the npm
 * registry npm is configured with.
 */

/** The environment of a project's commands: this Node first on PATH, no prompts, no metrics. */
export function projectEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
    CI: "true",
    WRANGLER_SEND_METRICS: "false",
    // wrangler dev stays on loopback: no fetch of the Request.cf template from workers.cloudflare.com.
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  };
}

/** Runs a command in `cwd` to its end; answers its output, or throws with it when the command fails. */
export function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, env: projectEnv(), encoding: "utf8", maxBuffer: 64 << 20 });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} in ${cwd} failed (${result.error?.message ?? result.status}):\n${output}`,
    );
  }
  return result.stdout;
}

/** A new project folder's package.json, then `npm install` of the packed tarballs and registry packages. */
export function installProject(dir: string, packages: readonly string[]): void {
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "app", private: true, type: "module" })}\n`);
  run("npm", ["install", ...packages], dir);
}

/** A process of a project (`wrangler dev`, a preview server) in a process group of its own. */
export interface ProjectProcess {
  output(): string;
  stop(): Promise<void>;
}

/** Starts a long-running command; `stop` ends its whole group (wrangler's workerd with it) and waits. */
export function start(command: string, args: readonly string[], cwd: string): ProjectProcess {
  const child = spawn(command, args, { cwd, env: projectEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, "exit");
  return {
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      await exited;
    },
  };
}
