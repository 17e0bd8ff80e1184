// `tokens.holder_count` and the holders list agree with the chain for a graduated token whose LP
// fees were collected: the expected holders are computed here from the token's `Transfer` logs
// (balances) minus the platform's contracts read from their getters (factory, curve, pool, fee
// manager, graduation manager, LP custodian, residual escrow, permanent LP fee vault and the
// community and trader-rewards vaults it forwards to), not from anything the indexer stored. The
// LP fee vault and both vaults end with a balance of the token, so counting any would be caught.
import { createTrader, type Devnet, localPublicClient } from "@tmi/devnet";
import {
  erc20Abi,
  graduationCustodyV3Abi,
  graduationManagerV3Abi,
  zonkFactoryV3Abi,
} from "@tmi/shared/chain";
import { createCursorCodec } from "@tmi/shared/codec";
import { createHttpApp } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import { ZERO_ADDRESS } from "@tmi/shared/market";
import { chainHead, type IndexerProcess } from "@tmi/testkit";
import type { FastifyInstance } from "fastify";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holderRoutes } from "../src/tokens/holders/holder-routes.js";
import { type IndexedDevnetApp, startIndexedDevnetApp } from "./harness.js";

let env: IndexedDevnetApp<FastifyInstance>;
let devnet: Devnet;
let indexer: IndexerProcess;
let reader: pg.Pool;
let app: FastifyInstance;

/** The holders route alone, over `db`. */
async function holdersApp(db: pg.Pool): Promise<FastifyInstance> {
  const http = createHttpApp({
    service: "query-api",
    logger: createLogger({ service: "query-api", level: "warn" }),
  }) as unknown as FastifyInstance;
  await http.register(holderRoutes({ db, cursors: createCursorCodec("holders-chain-secret-0123456789") }));
  await http.ready();
  return http;
}

beforeAll(async () => {
  env = await startIndexedDevnetApp({ app: holdersApp });
  ({ devnet, indexer, reader, app } = env);
});

afterAll(() => env?.stop());

describe("holders agree with the chain", () => {
  it("default: a graduated token with collected and forwarded LP fees (fee vault, community and trader-rewards vaults, escrow are not holders)", async () => {
    const wallet = (account: number) =>
      createTrader({ rpcUrl: devnet.rpcUrl, deployment: devnet.deployment, account });
    const [creator, a, b, c] = [wallet(1), wallet(2), wallet(3), wallet(4)];
    const launch = await creator.createToken("Holder Check", "HOLD", { value: 10n ** 17n });
    const token = launch.token;
    await a.buy(token, 3n * 10n ** 17n);
    await b.buy(token, 2n * 10n ** 17n);
    await a.graduate(token);
    // Pool swaps both ways (LP fees in the token and in WETH), a collection into the vault, and a
    // plain transfer to a fresh address.
    await b.swapExactTokensForEth(token, (await b.balanceOf(token)) / 2n);
    await c.swapExactEthForTokens(token, 10n ** 17n);
    await a.swapExactTokensForEth(token, (await a.balanceOf(token)) / 3n);
    const collected = await a.collectLPFees(token);
    const forwarded = await b.forwardLPFees(token);
    await c.transfer(token, "0x00000000000000000000000000000000000000c4", (await c.balanceOf(token)) / 4n);

    // The chain's answer, from logs and getters only.
    const client = localPublicClient(devnet.rpcUrl);
    const transfer = erc20Abi.find((item) => item.type === "event" && item.name === "Transfer");
    if (transfer?.type !== "event" || transfer.name !== "Transfer")
      throw new Error("Transfer missing from erc20Abi");
    const logs = await client.getLogs({
      address: token,
      event: transfer,
      fromBlock: 0n,
      toBlock: "latest",
      strict: true,
    });
    const balances = new Map<string, bigint>();
    for (const t of logs) {
      const { from, to, value } = t.args;
      balances.set(from.toLowerCase(), (balances.get(from.toLowerCase()) ?? 0n) - value);
      balances.set(to.toLowerCase(), (balances.get(to.toLowerCase()) ?? 0n) + value);
    }
    const { factory, graduationManager, feeManager } = devnet.deployment.contracts;
    const read = (functionName: "canonicalPoolOf" | "custodianOf" | "residualEscrowOf") =>
      client.readContract({
        address: graduationManager,
        abi: graduationManagerV3Abi,
        functionName,
        args: [token],
      });
    const custodian = await read("custodianOf");
    const feeVault = await client.readContract({
      address: custodian,
      abi: graduationCustodyV3Abi,
      functionName: "feeVault",
    });
    const vault = (functionName: "communityVault" | "traderRewardsVault") =>
      client.readContract({ address: feeVault, abi: graduationCustodyV3Abi, functionName });
    const platform = [
      ZERO_ADDRESS,
      token,
      factory,
      graduationManager,
      feeManager,
      await client.readContract({
        address: factory,
        abi: zonkFactoryV3Abi,
        functionName: "curveOf",
        args: [token],
      }),
      await read("canonicalPoolOf"),
      custodian,
      await read("residualEscrowOf"),
      feeVault,
      await vault("communityVault"),
      await vault("traderRewardsVault"),
    ].map((x) => x.toLowerCase());
    expect(platform).toContain(collected.feeVault);
    expect(platform).toContain(forwarded.communityVault);
    expect(platform).toContain(forwarded.traderRewardsVault);
    // The vaults hold some of the token: without their exclusion the count would be off.
    for (const v of [collected.feeVault, forwarded.communityVault, forwarded.traderRewardsVault])
      expect(balances.get(v) ?? 0n).toBeGreaterThan(0n);
    const expected = [...balances]
      .filter(([holder, balance]) => balance > 0n && !platform.includes(holder))
      .sort(([ha, ba], [hb, bb]) => (ba === bb ? (ha < hb ? -1 : 1) : ba > bb ? -1 : 1))
      .map(([address, balance]) => ({ address, balance: balance.toString() }));
    expect(expected.length).toBeGreaterThanOrEqual(4);

    await indexer.waitForBlock(await chainHead(devnet.rpcUrl), 120_000);
    const { rows } = await reader.query(
      `SELECT holder_count, lp_fee_vault_address, community_vault_address, trader_rewards_vault_address
         FROM tokens WHERE address = $1`,
      [token],
    );
    expect(rows[0]).toEqual({
      holder_count: expected.length,
      lp_fee_vault_address: collected.feeVault,
      community_vault_address: forwarded.communityVault,
      trader_rewards_vault_address: forwarded.traderRewardsVault,
    });
    const listed: { address: string; balance: string }[] = [];
    let cursor: string | undefined;
    do {
      const page = await app.inject({
        url: `/api/v1/tokens/${token}/holders?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      });
      expect(page.statusCode).toBe(200);
      const body = page.json() as { items: { address: string; balance: string }[]; next_cursor?: string };
      listed.push(...body.items.map(({ address, balance }) => ({ address, balance })));
      cursor = body.next_cursor;
    } while (cursor);
    expect(listed).toEqual(expected);
  });
});
