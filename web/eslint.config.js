// ESLint for the web UI (`npm run lint`, with --max-warnings 0: a warning fails as an error does):
// the JavaScript and typescript-eslint recommendations, syntax only (`tsc --noEmit` is the type
// check), and eslint-plugin-react-hooks' recommendation, the rules of hooks and exhaustive effect
// dependencies first among them.
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default defineConfig([
  // Build and test output, and the API types generated from openapi.yaml (npm run gen:api).
  globalIgnores(["dist/", "test-results/", "playwright-report/", "src/api/schema.gen.ts"]),
  {
    files: ["**/*.{js,mjs,ts,tsx}"],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ["src/**/*.{ts,tsx}"],
    extends: [reactHooks.configs.flat.recommended],
    rules: {
      // These three check what the React Compiler needs to memoize a component safely; the UI is
      // not compiled with it, and each would reject a pattern it uses on purpose: the latest
      // props or callback kept in a ref during render (so a long-lived listener or timer calls the
      // current one), an id made once in useRef's initial value, and an effect that resets state
      // as it starts over for a new input (a new output follower starts from an empty transcript).
      "react-hooks/refs": "off",
      "react-hooks/purity": "off",
      "react-hooks/set-state-in-effect": "off",
    },
  },
  {
    // Node code: the Playwright suite and its setup, the scripts and the tool configs.
    files: ["e2e/**/*.ts", "scripts/**/*.mjs", "*.config.{js,ts}"],
    languageOptions: { globals: { ...globals.node } },
  },
]);
