import { describe, expect, test } from "vitest";
import { z } from "zod";
import { baseEnvSchema, booleanFlag, EnvError, parseEnv, portSetting } from "./index.js";

const schema = baseEnvSchema.extend({
  PORT: portSetting(3000),
  SIMULATE: booleanFlag(true),
  RPC_URL: z.string().url(),
});

describe("parseEnv", () => {
  test("default: defaults apply, empty strings count as unset, result is frozen", () => {
    const env = parseEnv(schema, { RPC_URL: "http://127.0.0.1:8545", PORT: "", SIMULATE: "false" });
    expect(env.PORT).toBe(3000);
    expect(env.SIMULATE).toBe(false);
    expect(env.LOG_LEVEL).toBe("info");
    expect(Object.isFrozen(env)).toBe(true);
  });

  test("error: every problem is reported at once", () => {
    try {
      parseEnv(schema, { PORT: "99999", SIMULATE: "yes", LOG_LEVEL: "loud" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(EnvError);
      const problems = (error as EnvError).problems.join("\n");
      for (const key of ["PORT", "SIMULATE", "LOG_LEVEL", "RPC_URL"]) expect(problems).toContain(key);
    }
  });
});
