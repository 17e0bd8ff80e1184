import { AppError, type ErrorDetail } from "@tmi/shared/errors";
import type { HttpApp } from "@tmi/shared/http";
import { z } from "zod";
import { ETH_USD_SOURCE, type EthUsdPolicy, evaluateEthUsd, PRICE_DECIMALS } from "../feed/eth-usd-policy.js";
import { FeedReadError, type FeedReader } from "../feed/feed-reader.js";

/** What the price route needs: the reader (null when settings are missing), the rules and a clock. */
export interface PriceRouteDeps {
  reader: FeedReader | null;
  /** Names of missing required settings (non-empty exactly when `reader` is null). */
  missingSettings: string[];
  policy: EthUsdPolicy;
  /** Wall clock in Unix seconds (tests may pin it). */
  nowSeconds: () => number;
}

const ethUsdResponse = z.object({
  price: z.string().meta({
    description: "ETH/USD with exactly 8 fractional digits (floor for a feed with more)",
    example: "3012.45000000",
  }),
  price_decimals: z.literal(PRICE_DECIMALS),
  updated_at: z
    .string()
    .meta({ description: "the round's updatedAt, ISO 8601 UTC", example: "2026-08-15T10:00:00Z" }),
  feed: z.string().meta({ description: "the feed address read (ORACLE_ETH_USD_ADDRESS, lowercase)" }),
  source: z.literal(ETH_USD_SOURCE),
  max_age_seconds: z.number().int().meta({ description: "ORACLE_ETH_USD_MAX_AGE: the oldest answer served" }),
  decimals: z.literal(PRICE_DECIMALS).meta({ description: "the spec's key: fractional digits of price" }),
  chain_id: z.number().int(),
  updated_at_unix: z.number().int().meta({ description: "the round's updatedAt, Unix seconds" }),
});

function unavailable(details: ErrorDetail[], cause?: unknown): AppError {
  return new AppError("oracle_unavailable", "the ETH/USD reference price is unavailable", { details, cause });
}

/**
 * `GET /api/v1/prices/eth-usd`: reads the feed on every request (no cache; `Cache-Control:
 * no-store`) and answers the ETH/USD reference response, or 503 `oracle_unavailable` with the
 * reasons in `details` (`settings`, `rpc`, `chain_id`, `sequencer`, `answer`, `round`, `updated_at`).
 */
export function registerPriceRoutes(app: HttpApp, deps: PriceRouteDeps): void {
  app.get(
    "/api/v1/prices/eth-usd",
    { schema: { response: { 200: ethUsdResponse } } },
    async (_request, reply) => {
      reply.header("cache-control", "no-store");
      if (!deps.reader) {
        throw unavailable(
          deps.missingSettings.map((name) => ({ field: "settings", reason: `${name} is not set` })),
        );
      }
      let snapshot: Awaited<ReturnType<FeedReader["read"]>>;
      try {
        snapshot = await deps.reader.read();
      } catch (error) {
        const reason =
          error instanceof FeedReadError
            ? `${error.failure}: ${error.message}`
            : "rpc_error: RPC request failed";
        throw unavailable([{ field: "rpc", reason }], error);
      }
      const result = evaluateEthUsd(snapshot, deps.policy, deps.nowSeconds());
      if (!result.ok) throw unavailable(result.details);
      return result.price;
    },
  );
}
