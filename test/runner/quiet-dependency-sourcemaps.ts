import type { Plugin } from "vite";

const MISSING_SOURCES = /^Sourcemap for "[^"]*[\\/]node_modules[\\/][^"]*" points to missing source files$/;

/**
 * Drops vite's "Sourcemap for <a dependency's file> points to missing source files" notices (the MCP
 * SDK ships maps naming sources it does not ship): one line per file, nothing a test run can act on.
 * Every other vite warning still prints. vitest replaces `customLogger`, so this wraps the resolved one.
 */
export function quietDependencySourcemaps(): Plugin {
  return {
    name: "toolgate:quiet-dependency-sourcemaps",
    configResolved(config) {
      const warnOnce = config.logger.warnOnce.bind(config.logger);
      config.logger.warnOnce = (message, options) => {
        if (!MISSING_SOURCES.test(message)) warnOnce(message, options);
      };
    },
  };
}
