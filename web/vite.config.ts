import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// The UI is served by the Berth server itself (index.html for the client routes, /assets/* with
// long-lived caching), so the output goes to dist/ and the Maven build copies it into the jar.
// `npm run dev` proxies the API to a server on 127.0.0.1:8080 for working on the UI alone.
export default defineConfig({
  plugins: [react()],
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
