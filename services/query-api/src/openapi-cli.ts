// `pnpm --filter @tmi/query-api openapi [file]`: writes query-api's OpenAPI document (JSON, the
// document served at /api/v1/openapi.json) to `file`, or to stdout. No database or network.
import { writeFileSync } from "node:fs";
import { buildOpenApiDocument } from "./openapi-document.js";

const file = process.argv[2];
const text = `${JSON.stringify(await buildOpenApiDocument(), null, 2)}\n`;
if (file) writeFileSync(file, text);
else process.stdout.write(text);
