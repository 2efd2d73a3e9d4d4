// Generates src/api/schema.gen.ts, the TypeScript form of the server's OpenAPI document, with
// openapi-typescript; src/api/types.ts derives the UI's wire types from it. `--check` generates
// into a temporary file instead and fails when the committed file differs, so a change to the
// document that was not regenerated is caught by the tests (bin/test-web) rather than by a user.
//
//   node scripts/api-types.mjs           (npm run gen:api)
//   node scripts/api-types.mjs --check   (npm run check:api)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const web = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const document = resolve(web, "../berth-server/src/main/resources/openapi/openapi.yaml");
const generated = resolve(web, "src/api/schema.gen.ts");
const cli = resolve(web, "node_modules/openapi-typescript/bin/cli.js");
const check = process.argv.includes("--check");

/** Runs openapi-typescript on the document into `output`; its own report only when it fails. */
function generate(output) {
  const run = spawnSync(process.execPath, [cli, document, "--output", output], {
    cwd: web,
    encoding: "utf8",
  });
  if (run.status !== 0) {
    process.stderr.write(run.stdout + run.stderr);
    console.error(`openapi-typescript failed on ${relative(web, document)}`);
    process.exit(1);
  }
}

if (!check) {
  generate(generated);
  console.log(`${relative(web, generated)} generated from ${relative(web, document)}`);
} else {
  const dir = mkdtempSync(join(tmpdir(), "berth-api-types-"));
  try {
    const fresh = join(dir, "schema.gen.ts");
    generate(fresh);
    let committed = "";
    try {
      committed = readFileSync(generated, "utf8");
    } catch {
      // missing: as stale as a different one
    }
    if (committed !== readFileSync(fresh, "utf8")) {
      console.error("web/src/api/schema.gen.ts is stale: run npm run gen:api");
      process.exitCode = 1;
    } else {
      console.log("web/src/api/schema.gen.ts is up to date with openapi.yaml");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
