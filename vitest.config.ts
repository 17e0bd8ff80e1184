import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// Workspace packages resolve to their TypeScript sources in tests (their exports point at dist/).
const alias = [
  { find: /^@tmi\/shared\/(.*)$/, replacement: here("./packages/shared/src/$1/index.ts") },
  { find: /^@tmi\/db$/, replacement: here("./prisma/src/index.ts") },
  { find: /^@tmi\/contracts$/, replacement: here("./packages/contracts/src/index.ts") },
  { find: /^@tmi\/devnet$/, replacement: here("./packages/devnet/src/index.ts") },
  { find: /^@tmi\/testkit$/, replacement: here("./packages/testkit/src/index.ts") },
  { find: /^@tmi\/client$/, replacement: here("./packages/client/src/index.ts") },
];

const exclude = ["**/node_modules/**", "**/dist/**"];

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          sequence: { groupOrder: 0 },
          include: ["packages/*/src/**/*.test.ts", "services/*/src/**/*.test.ts", "prisma/src/**/*.test.ts"],
          exclude: [...exclude, "**/*.int.test.ts"],
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          sequence: { groupOrder: 1 },
          include: ["**/*.int.test.ts"],
          exclude,
          globalSetup: [here("./packages/testkit/src/global-setup.ts")],
          testTimeout: 300_000,
          hookTimeout: 180_000,
          maxWorkers: 2,
          minWorkers: 1,
        },
      },
    ],
  },
});
