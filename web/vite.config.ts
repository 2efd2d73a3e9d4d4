import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { defineConfig, type Plugin } from "vitest/config";
import react from "@vitejs/plugin-react";

// The UI is served by the Berth server itself (index.html for the client routes, /assets/* with
// long-lived caching), so the output goes to dist/ and the Maven build copies it into the jar.
// `npm run dev` proxies the API to a server on 127.0.0.1:8080 for working on the UI alone.
export default defineConfig({
  plugins: [react(), gzipped()],
  build: {
    outDir: "dist",
    assetsDir: "assets",
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
  },
  server: {
    proxy: {
      "/api": { target: "http://127.0.0.1:8080", ws: true },
      "/login": "http://127.0.0.1:8080",
    },
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});

/**
 * Writes `name.gz` beside each asset of the build (JS, CSS, SVG) that gzip makes smaller, which
 * the server sends to clients that accept gzip. The server compresses no answer as it goes (its
 * API, SSE and WebSocket answers stay as they are), so the work is done here, once, at the best
 * level; only the page, index.html, it gzips itself, once at start.
 */
function gzipped(): Plugin {
  return {
    name: "berth-gzipped",
    apply: "build",
    writeBundle(options, bundle) {
      const dir = options.dir ?? "dist";
      for (const name of Object.keys(bundle).filter((n) => /\.(js|css|svg)$/.test(n))) {
        const plain = readFileSync(join(dir, name));
        const packed = gzipSync(plain, { level: 9 });
        if (packed.length < plain.length) writeFileSync(join(dir, `${name}.gz`), packed);
      }
    },
  };
}
