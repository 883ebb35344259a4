import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const page = (name: string) => fileURLToPath(new URL(name, import.meta.url));

// The console: plain TypeScript + DOM, built to dist/web, which the Worker serves as static assets.
// Two documents: the console (index.html) and the Playground (playground.html), each with its own CSP.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "./",
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    rollupOptions: { input: { console: page("index.html"), playground: page("playground.html") } },
  },
  server: {
    host: "127.0.0.1",
    port: 5173,
    proxy: { "/v1": "http://127.0.0.1:8787", "/healthz": "http://127.0.0.1:8787" },
  },
});
