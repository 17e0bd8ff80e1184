// The V3 contract set on anvil (automine) against the platform's figures and the off-chain mirror of
// the curve in @tmi/shared/chain: launch and graduation prices, the exact graduation gross, the refund
// of an oversized graduating buy, the fee split, log order, trading closed after graduation, the
// createToken reverts, CREATE2 salt selection around a taken pool slot, and canonical-pool swaps in
// both token orders.
import {
  type AnvilProcess,
  type Deployment,
  deployAll,
  localPublicClient,
  localWalletClient,
  startAnvil,
  waitForReceipt,
} from "@tmi/devnet";
import {
  applyBuy,
  applySell,
  CURVE_ALLOCATION,
  curveSpotPrice,
  EXACT_GRADUATION_GROSS,
  erc20Abi,
  feeManagerV3Abi,
  GRADUATION_NET_ETH,
  graduationCustodyV3Abi,
  graduationManagerV3Abi,
  INITIAL_CURVE_STATE,
  INITIAL_PRICE,
  LP_ALLOCATION,
  PROTOCOL_VERSION,
  permanentLPFeeVaultV3Abi,
  poolPriceFromSqrtPriceX96,
  quoteBuy,
  quoteSell,
  TERMINAL_PRICE,
  TERMINAL_SQRT_PRICE_X96_TOKEN0,
  TERMINAL_SQRT_PRICE_X96_TOKEN1,
  TOTAL_SUPPLY,
  tokenCommunityVaultV3Abi,
  traderRewardsDistributorV3Abi,
  traderRewardsVaultV3Abi,
  VIRTUAL_ETH_RESERVE,
  VIRTUAL_TOKEN_RESERVE,
  zonkCurveV3Abi,
  zonkFactoryV3Abi,
} from "@tmi/shared/chain";
import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  type Hex,
  keccak256,
  type Log,
  maxUint256,
  parseEther,
  parseEventLogs,
  stringToHex,
  type TransactionReceipt,
  toEventSelector,
  toFunctionSelector,
  toHex,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  tokenCommunityVaultV3Abi as compiledCommunityVaultAbi,
  zonkCurveV3Abi as compiledCurveAbi,
  traderRewardsDistributorV3Abi as compiledDistributorAbi,
  zonkFactoryV3Abi as compiledFactoryAbi,
  feeManagerV3Abi as compiledFeeManagerAbi,
  graduationManagerV3Abi as compiledGraduationManagerAbi,
  permanentLPFeeVaultV3Abi as compiledLPFeeVaultAbi,
  traderRewardsVaultV3Abi as compiledRewardsVaultAbi,
  nonfungiblePositionManagerAbi,
  swapRouterAbi,
  uniswapV3FactoryAbi,
  uniswapV3PoolAbi,
  weth9Abi,
  zonkTokenDeployerV3Abi,
} from "./index.js";

/** What the platform's full-range mint uses of 200 M tokens and 3 ETH at the terminal price. */
const TOKEN_USED_AS_TOKEN0 = 199_999_999_999_999_999_999_999_977n;
const TOKEN_USED_AS_TOKEN1 = 199_999_999_999_999_999_999_999_968n;
const WETH_USED = 2_999_999_999_999_998_668n;

let anvil: AnvilProcess;
let deployment: Deployment;
let client: ReturnType<typeof localPublicClient>;
let saltCounter = 0n;

beforeAll(async () => {
  anvil = await startAnvil({ blockTime: "automine" });
  deployment = await deployAll(anvil.rpcUrl);
  client = localPublicClient(anvil.rpcUrl);
});
afterAll(async () => {
  await anvil?.stop();
});

const nextSalt = (): Hex => stringToHex(`salt-${++saltCounter}`, { size: 32 });
const lower = (a: string) => a.toLowerCase();

async function send(
  account: number,
  to: Address,
  abi: Abi,
  functionName: string,
  args: readonly unknown[],
  value = 0n,
): Promise<TransactionReceipt> {
  const wallet = localWalletClient(anvil.rpcUrl, account);
  const request = { address: to, abi, functionName, args, value, account: wallet.account } as never;
  // The estimate runs in the pending block; when the transaction is mined a second later, the pool's
  // oracle writes a new observation (more gas) and an unpadded estimate runs out of gas in a graduation.
  const estimate = await client.estimateContractGas(request);
  const hash = await wallet.writeContract({
    ...(request as object),
    gas: (estimate * 5n) / 4n + 10_000n,
  } as never);
  const receipt = await waitForReceipt(client, hash);
  if (receipt.status !== "success") throw new Error(`${functionName} reverted (gas ${receipt.gasUsed})`);
  return receipt;
}

function read<T>(
  address: Address,
  abi: Abi,
  functionName: string,
  args: readonly unknown[] = [],
): Promise<T> {
  return client.readContract({ address, abi, functionName, args } as never) as Promise<T>;
}

/** The custom error name a call would revert with. */
async function revertName(
  account: number,
  to: Address,
  abi: Abi,
  functionName: string,
  args: readonly unknown[],
  value = 0n,
): Promise<string | undefined> {
  const wallet = localWalletClient(anvil.rpcUrl, account);
  try {
    await client.simulateContract({
      account: wallet.account,
      address: to,
      abi,
      functionName,
      args,
      value,
    } as never);
  } catch (error) {
    if (error instanceof BaseError) {
      const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
      if (reverted instanceof ContractFunctionRevertedError) return reverted.data?.errorName;
    }
    throw error;
  }
  return undefined;
}

interface Launch {
  receipt: TransactionReceipt;
  token: Address;
  curve: Address;
  pool: Address;
  attemptIndex: number;
  tokenIsToken0: boolean;
}

async function launch(
  account: number,
  name: string,
  symbol: string,
  salt: Hex = nextSalt(),
): Promise<Launch> {
  const receipt = await send(account, deployment.contracts.factory, zonkFactoryV3Abi, "createToken", [
    name,
    symbol,
    salt,
  ]);
  const [event] = parseEventLogs({ abi: zonkFactoryV3Abi, logs: receipt.logs, eventName: "TokenLaunchedV3" });
  if (!event) throw new Error("no TokenLaunchedV3");
  return {
    receipt,
    token: event.args.token,
    curve: event.args.curve,
    pool: event.args.canonicalPool,
    attemptIndex: event.args.attemptIndex,
    tokenIsToken0: BigInt(event.args.token) < BigInt(deployment.contracts.weth),
  };
}

const deadline = () => BigInt(Math.floor(Date.now() / 1000) + 3600);

async function buy(account: number, curve: Address, value: bigint): Promise<TransactionReceipt> {
  return send(account, curve, zonkCurveV3Abi, "buy", [0n, deadline()], value);
}

/** topic0 of `signature` for a compact log-order description. */
const topic = (signature: string) => toEventSelector(signature);
const TRANSFER = topic("Transfer(address,address,uint256)");
const FEES_DEPOSITED = topic("FeesDeposited(address,address,bool,uint256,uint256,uint256,uint256,uint256)");

function eventName(log: Log): string {
  const abis = [
    zonkFactoryV3Abi,
    zonkCurveV3Abi,
    graduationManagerV3Abi,
    feeManagerV3Abi,
    graduationCustodyV3Abi,
    erc20Abi,
    uniswapV3PoolAbi,
    uniswapV3FactoryAbi,
    nonfungiblePositionManagerAbi,
    weth9Abi,
  ] as readonly Abi[];
  for (const abi of abis) {
    const [parsed] = parseEventLogs({ abi, logs: [log], strict: false });
    if (parsed) return (parsed as unknown as { eventName: string }).eventName;
  }
  return log.topics[0] ?? "anonymous";
}

describe("zonk V3 contracts", () => {
  it("default: a launch emits the platform's logs with TokenLaunchedV3 last, at 937,500,000 wei per token", async () => {
    const { receipt, token, curve, pool, attemptIndex, tokenIsToken0 } = await launch(1, "Alpha", "ALP");
    const creator = localWalletClient(anvil.rpcUrl, 1).account.address;

    const tx = await client.getTransaction({ hash: receipt.transactionHash });
    expect(tx.input.slice(0, 10)).toBe("0x72c46e10");
    expect(receipt.logs.map((l) => [lower(l.address), eventName(l)])).toEqual([
      [lower(token), "Transfer"],
      [deployment.contracts.feeManager, "TokenRegistered"],
      [deployment.contracts.uniswapV3Factory, "PoolCreated"],
      [lower(pool), "Initialize"],
      [deployment.contracts.graduationManager, "LaunchRegistered"],
      [deployment.contracts.factory, "TokenLaunchedV3"],
    ]);
    const [launched] = parseEventLogs({
      abi: zonkFactoryV3Abi,
      logs: receipt.logs,
      eventName: "TokenLaunchedV3",
    });
    expect(launched?.args).toMatchObject({
      creator,
      protocolVersion: PROTOCOL_VERSION,
      totalSupply: TOTAL_SUPPLY,
      curveAllocation: CURVE_ALLOCATION,
      lpAllocation: LP_ALLOCATION,
      initialCreatorPayout: creator,
    });
    expect(attemptIndex).toBe(0);
    const [minted] = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: "Transfer" });
    expect(minted?.args).toEqual({
      from: "0x0000000000000000000000000000000000000000",
      to: curve,
      value: TOTAL_SUPPLY,
    });

    expect(await read(token, erc20Abi, "name")).toBe("Alpha");
    expect(await read(token, erc20Abi, "symbol")).toBe("ALP");
    expect(await read(token, erc20Abi, "decimals")).toBe(18);
    expect(await read(token, erc20Abi, "balanceOf", [curve])).toBe(TOTAL_SUPPLY);
    const factory = deployment.contracts.factory;
    expect(await read(factory, zonkFactoryV3Abi, "tokenInfo", [token])).toEqual([creator, curve]);
    expect(await read(factory, zonkFactoryV3Abi, "isToken", [token])).toBe(true);
    expect(await read(factory, zonkFactoryV3Abi, "curveOf", [token])).toBe(curve);
    expect(await read(factory, zonkFactoryV3Abi, "tokensByCreator", [creator])).toEqual([token]);
    expect(await read(factory, zonkFactoryV3Abi, "PROTOCOL_VERSION")).toBe("endpoint-cp-v3");
    expect(lower(await read(factory, zonkFactoryV3Abi, "graduationManager"))).toBe(
      deployment.contracts.graduationManager,
    );

    expect(await read(curve, zonkCurveV3Abi, "spotPrice")).toBe(INITIAL_PRICE);
    expect(INITIAL_PRICE).toBe(937_500_000n);
    expect(await read(curve, zonkCurveV3Abi, "soldSupply")).toBe(0n);
    expect(await read(curve, zonkCurveV3Abi, "reserveCoordinate")).toBe(0n);
    expect(await read(curve, zonkCurveV3Abi, "virtualTokenReserve")).toBe(VIRTUAL_TOKEN_RESERVE);
    expect(await read(curve, zonkCurveV3Abi, "virtualEthReserve")).toBe(VIRTUAL_ETH_RESERVE);
    expect(await read(curve, zonkCurveV3Abi, "graduated")).toBe(false);

    const manager = deployment.contracts.graduationManager;
    expect(lower(await read(manager, graduationManagerV3Abi, "canonicalPoolOf", [token]))).toBe(lower(pool));
    const selection = await read<readonly unknown[]>(
      manager,
      compiledGraduationManagerAbi as Abi,
      "launchSelectionOf",
      [token],
    );
    expect(selection).toEqual([pool, launched?.args.launchSeed, launched?.args.candidateSalt, 0]);
    expect(await read(curve, compiledCurveAbi as Abi, "EXACT_GRADUATION_GROSS")).toBe(EXACT_GRADUATION_GROSS);
    expect(await read(curve, compiledCurveAbi as Abi, "feePolicyHash")).toBe(
      keccak256(toHex("zonk-fee-design-b-v3")),
    );
    const [sqrtPriceX96] = await read<readonly [bigint]>(pool, uniswapV3PoolAbi, "slot0");
    expect(sqrtPriceX96).toBe(
      tokenIsToken0 ? TERMINAL_SQRT_PRICE_X96_TOKEN0 : TERMINAL_SQRT_PRICE_X96_TOKEN1,
    );
    expect(await read(pool, uniswapV3PoolAbi, "fee")).toBe(10_000);
    expect(await read(pool, uniswapV3PoolAbi, "liquidity")).toBe(0n);
  });

  it("behavior: the shared ABIs match the compiled contracts (selectors and event topics)", () => {
    const signatures = (abi: Abi) =>
      new Set(
        abi.flatMap((item) =>
          item.type === "function"
            ? [toFunctionSelector(item)]
            : item.type === "event"
              ? [toEventSelector(item)]
              : [],
        ),
      );
    const pairs: [Abi, Abi][] = [
      [zonkFactoryV3Abi, compiledFactoryAbi as Abi],
      [zonkCurveV3Abi, compiledCurveAbi as Abi],
      [graduationManagerV3Abi, compiledGraduationManagerAbi as Abi],
      [feeManagerV3Abi, compiledFeeManagerAbi as Abi],
      [permanentLPFeeVaultV3Abi, compiledLPFeeVaultAbi as Abi],
      [tokenCommunityVaultV3Abi, compiledCommunityVaultAbi as Abi],
      [traderRewardsVaultV3Abi, compiledRewardsVaultAbi as Abi],
      [traderRewardsDistributorV3Abi, compiledDistributorAbi as Abi],
    ];
    for (const [shared, compiled] of pairs) {
      const have = signatures(compiled);
      for (const selector of signatures(shared)) expect(have.has(selector)).toBe(true);
    }
    expect(
      encodeFunctionData({
        abi: zonkFactoryV3Abi,
        functionName: "createToken",
        args: ["a", "b", nextSalt()],
      }).slice(0, 10),
    ).toBe("0x72c46e10");
  });

  it("behavior: buys and sells match the off-chain mirror, fees split 35/20/15/rest, in the platform's log order", async () => {
    const { token, curve } = await launch(2, "Beta", "BET");
    const buyer = localWalletClient(anvil.rpcUrl, 3).account.address;
    const value = parseEther("0.25");
    const expected = quoteBuy(INITIAL_CURVE_STATE, value);
    const onChainQuote = await read<Record<string, unknown>>(curve, zonkCurveV3Abi, "quoteBuy", [value]);
    expect(onChainQuote).toEqual(expected);

    const bought = await buy(3, curve, value);
    expect(bought.logs.map((l) => [lower(l.address), eventName(l)])).toEqual([
      [lower(token), "Transfer"],
      [deployment.contracts.feeManager, "FeesDeposited"],
      [lower(curve), "TokensBought"],
    ]);
    expect(bought.logs[0]?.topics[0]).toBe(TRANSFER);
    expect(bought.logs[1]?.topics[0]).toBe(FEES_DEPOSITED);
    const [boughtEvent] = parseEventLogs({
      abi: zonkCurveV3Abi,
      logs: bought.logs,
      eventName: "TokensBought",
    });
    const { reachesGraduation: _, ...expectedEvent } = expected;
    expect(boughtEvent?.args).toEqual({ token, buyer: expect.stringMatching(/^0x/), ...expectedEvent });
    expect(lower(boughtEvent?.args.buyer ?? "")).toBe(lower(buyer));
    expect(expected.totalFee).toBe(value / 100n);
    expect(expected.creatorFee).toBe((expected.totalFee * 35n) / 100n);
    expect(expected.communityFee).toBe((expected.totalFee * 20n) / 100n);
    expect(expected.traderRewardsFee).toBe((expected.totalFee * 15n) / 100n);
    expect(expected.protocolFee).toBe(
      expected.totalFee - expected.creatorFee - expected.communityFee - expected.traderRewardsFee,
    );
    const [fees] = parseEventLogs({ abi: feeManagerV3Abi, logs: bought.logs, eventName: "FeesDeposited" });
    expect(fees?.args).toEqual({
      token,
      curve,
      isBuy: true,
      totalFee: expected.totalFee,
      creatorFee: expected.creatorFee,
      protocolFee: expected.protocolFee,
      communityFee: expected.communityFee,
      traderRewardsFee: expected.traderRewardsFee,
    });
    const feeManager = deployment.contracts.feeManager;
    expect(await read(feeManager, feeManagerV3Abi, "creatorFeesAccrued", [token])).toBe(expected.creatorFee);
    expect(await client.getBalance({ address: feeManager })).toBeGreaterThanOrEqual(expected.totalFee);

    let state = applyBuy(INITIAL_CURVE_STATE, expected);
    expect(await read(curve, zonkCurveV3Abi, "soldSupply")).toBe(state.soldSupply);
    expect(await read(curve, zonkCurveV3Abi, "reserveCoordinate")).toBe(state.reserveCoordinate);
    expect(await read(curve, zonkCurveV3Abi, "spotPrice")).toBe(
      curveSpotPrice(state.soldSupply, state.reserveCoordinate),
    );

    const amount = expected.tokensOut / 3n;
    const expectedSell = quoteSell(state, amount);
    await send(3, token, erc20Abi, "approve", [curve, amount]);
    const balanceBefore = await client.getBalance({ address: buyer });
    const sold = await send(3, curve, zonkCurveV3Abi, "sell", [amount, 0n, deadline()]);
    expect(sold.logs.map((l) => [lower(l.address), eventName(l)])).toEqual([
      [lower(token), "Transfer"],
      [deployment.contracts.feeManager, "FeesDeposited"],
      [lower(curve), "TokensSold"],
    ]);
    const [soldEvent] = parseEventLogs({ abi: zonkCurveV3Abi, logs: sold.logs, eventName: "TokensSold" });
    expect(soldEvent?.args).toEqual({ token, seller: expect.stringMatching(/^0x/), ...expectedSell });
    const balanceAfter = await client.getBalance({ address: buyer });
    expect(balanceAfter - balanceBefore + sold.gasUsed * sold.effectiveGasPrice).toBe(
      expectedSell.netSellerOutput,
    );
    state = { ...state, soldSupply: state.soldSupply - amount };
    expect(await read(curve, zonkCurveV3Abi, "soldSupply")).toBe(state.soldSupply);
  });

  it("behavior: a random sequence of buys and sells stays bit-exact with the mirror up to graduation", async () => {
    const { token, curve } = await launch(3, "Random", "RND");
    let state = INITIAL_CURVE_STATE;
    const held = new Map<number, bigint>();
    let seed = 12_345;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (const account of [3, 4]) await send(account, token, erc20Abi, "approve", [curve, maxUint256]);
    for (let i = 0; i < 40 && !state.graduated; i++) {
      const account = random() < 0.5 ? 3 : 4;
      const balance = held.get(account) ?? 0n;
      if (balance > 0n && random() < 0.35) {
        const amount = (balance * BigInt(1 + Math.floor(random() * 100))) / 100n;
        const expected = quoteSell(state, amount);
        const receipt = await send(account, curve, zonkCurveV3Abi, "sell", [amount, 0n, deadline()]);
        const [event] = parseEventLogs({ abi: zonkCurveV3Abi, logs: receipt.logs, eventName: "TokensSold" });
        expect(event?.args).toMatchObject(expected);
        state = applySell(state, expected);
        held.set(account, balance - amount);
      } else {
        const value = BigInt(Math.floor(random() * 400_000_000)) * 1_000_000_000n + 1n;
        const expected = quoteBuy(state, value);
        const receipt = await buy(account, curve, value);
        const [event] = parseEventLogs({
          abi: zonkCurveV3Abi,
          logs: receipt.logs,
          eventName: "TokensBought",
        });
        const { reachesGraduation: _, ...fields } = expected;
        expect(event?.args).toMatchObject(fields);
        state = applyBuy(state, expected);
        held.set(account, balance + expected.tokensOut);
      }
      expect(await read(curve, zonkCurveV3Abi, "soldSupply")).toBe(state.soldSupply);
      expect(await read(curve, zonkCurveV3Abi, "reserveCoordinate")).toBe(state.reserveCoordinate);
      expect(await read(curve, zonkCurveV3Abi, "spotPrice")).toBe(
        curveSpotPrice(state.soldSupply, state.reserveCoordinate),
      );
    }
    // Finish with an oversized buy: capped at the gross that completes graduation from this state.
    expect(state.graduated).toBe(false);
    const last = quoteBuy(state, parseEther("4"));
    expect(last.reachesGraduation).toBe(true);
    expect(last.netCurveInput).toBe(GRADUATION_NET_ETH - state.reserveCoordinate);
    expect(last.tokensOut).toBe(CURVE_ALLOCATION - state.soldSupply);
    const receipt = await buy(4, curve, parseEther("4"));
    const [event] = parseEventLogs({ abi: zonkCurveV3Abi, logs: receipt.logs, eventName: "TokensBought" });
    const { reachesGraduation: _, ...fields } = last;
    expect(event?.args).toMatchObject(fields);
    expect(await read(curve, zonkCurveV3Abi, "graduated")).toBe(true);
    expect(await read(curve, zonkCurveV3Abi, "spotPrice")).toBe(TERMINAL_PRICE);
  });

  it("behavior: an oversized buy graduates at exactly 3,030,303,030,303,030,303 wei gross, refunds the rest and closes the curve", async () => {
    const { token, curve, pool, tokenIsToken0 } = await launch(4, "Gamma", "GAM");
    const buyer = localWalletClient(anvil.rpcUrl, 5).account.address;
    const submitted = parseEther("5");
    const before = await client.getBalance({ address: buyer });
    const receipt = await buy(5, curve, submitted);
    const after = await client.getBalance({ address: buyer });
    const spent = before - after - receipt.gasUsed * receipt.effectiveGasPrice;
    expect(spent).toBe(3_030_303_030_303_030_303n);
    expect(EXACT_GRADUATION_GROSS).toBe(3_030_303_030_303_030_303n);

    const [bought] = parseEventLogs({ abi: zonkCurveV3Abi, logs: receipt.logs, eventName: "TokensBought" });
    expect(bought?.args).toMatchObject({
      submittedGross: submitted,
      acceptedGross: EXACT_GRADUATION_GROSS,
      netCurveInput: GRADUATION_NET_ETH,
      tokensOut: CURVE_ALLOCATION,
      refund: submitted - EXACT_GRADUATION_GROSS,
      totalFee: EXACT_GRADUATION_GROSS - GRADUATION_NET_ETH,
    });
    const names = receipt.logs.map((l) => eventName(l));
    expect(names.slice(0, 3)).toEqual(["Transfer", "FeesDeposited", "Transfer"]);
    expect(names.slice(-4)).toEqual([
      "GraduatedV3",
      "GraduationReserveForwarded",
      "Graduated",
      "TokensBought",
    ]);
    expect(names).toContain("Mint");
    expect(names).toContain("IncreaseLiquidity");
    const managerTransfer = parseEventLogs({ abi: erc20Abi, logs: [receipt.logs[2] as Log] })[0];
    expect(managerTransfer?.args).toEqual({
      from: curve,
      to: expect.stringMatching(/^0x/),
      value: LP_ALLOCATION,
    });
    const transferArgs = managerTransfer?.eventName === "Transfer" ? managerTransfer.args : undefined;
    expect(lower(transferArgs?.to ?? "")).toBe(deployment.contracts.graduationManager);

    const [graduated] = parseEventLogs({ abi: zonkCurveV3Abi, logs: receipt.logs, eventName: "Graduated" });
    expect(graduated?.args).toMatchObject({
      token,
      tokenAmount: LP_ALLOCATION,
      ethAmount: GRADUATION_NET_ETH,
      soldSupply: CURVE_ALLOCATION,
    });
    expect(lower(graduated?.args.graduationManager ?? "")).toBe(deployment.contracts.graduationManager);
    const [forwarded] = parseEventLogs({
      abi: zonkCurveV3Abi,
      logs: receipt.logs,
      eventName: "GraduationReserveForwarded",
    });
    expect(forwarded?.args).toEqual({
      terminalReserveCoordinate: GRADUATION_NET_ETH,
      ethForwarded: GRADUATION_NET_ETH,
    });

    const manager = deployment.contracts.graduationManager;
    const [settled] = parseEventLogs({
      abi: graduationManagerV3Abi,
      logs: receipt.logs,
      eventName: "GraduatedV3",
    });
    const custodian = settled?.args.custodian as Address;
    expect(lower(await read(manager, graduationManagerV3Abi, "custodianOf", [token]))).toBe(lower(custodian));
    const tokenId = settled?.args.tokenId as bigint;
    expect(
      lower(
        await read(
          deployment.contracts.nonfungiblePositionManager,
          nonfungiblePositionManagerAbi as Abi,
          "ownerOf",
          [tokenId],
        ),
      ),
    ).toBe(lower(custodian));
    const position = await read<readonly unknown[]>(
      deployment.contracts.nonfungiblePositionManager,
      nonfungiblePositionManagerAbi as Abi,
      "positions",
      [tokenId],
    );
    expect(position.slice(4, 8)).toEqual([10_000, -887_200, 887_200, settled?.args.liquidity]);
    expect(await read(pool, uniswapV3PoolAbi, "liquidity")).toBe(settled?.args.liquidity);

    // The mint uses what the platform's mint uses; the rest sits in the token's escrow.
    const escrow = await read<Address>(manager, graduationManagerV3Abi, "residualEscrowOf", [token]);
    const tokenUsed = tokenIsToken0 ? TOKEN_USED_AS_TOKEN0 : TOKEN_USED_AS_TOKEN1;
    expect(await read(token, erc20Abi, "balanceOf", [escrow])).toBe(LP_ALLOCATION - tokenUsed);
    expect(await read(deployment.contracts.weth, erc20Abi, "balanceOf", [escrow])).toBe(
      GRADUATION_NET_ETH - WETH_USED,
    );
    expect(await read(token, erc20Abi, "balanceOf", [pool])).toBe(tokenUsed);
    expect(await read(deployment.contracts.weth, erc20Abi, "balanceOf", [pool])).toBe(WETH_USED);
    expect(await read(token, erc20Abi, "balanceOf", [manager])).toBe(0n);
    expect(await read(token, erc20Abi, "balanceOf", [curve])).toBe(0n);
    expect(await client.getBalance({ address: curve })).toBe(0n);

    expect(await read(curve, zonkCurveV3Abi, "graduated")).toBe(true);
    expect(await read(curve, compiledCurveAbi as Abi, "graduationEthForwarded")).toBe(GRADUATION_NET_ETH);
    expect(await read(curve, compiledCurveAbi as Abi, "activeEthReserve")).toBe(0n);
    expect(await read(curve, compiledCurveAbi as Abi, "unaccountedEth")).toBe(0n);
    expect(await read(curve, zonkCurveV3Abi, "spotPrice")).toBe(TERMINAL_PRICE);
    expect(TERMINAL_PRICE).toBe(15_000_000_000n);
    expect(await read(curve, zonkCurveV3Abi, "reserveCoordinate")).toBe(GRADUATION_NET_ETH);
    expect(await read(curve, zonkCurveV3Abi, "virtualEthReserve")).toBe(
      VIRTUAL_ETH_RESERVE + GRADUATION_NET_ETH,
    );
    expect(await read(curve, zonkCurveV3Abi, "virtualTokenReserve")).toBe(
      VIRTUAL_TOKEN_RESERVE - CURVE_ALLOCATION,
    );

    expect(await revertName(6, curve, zonkCurveV3Abi, "buy", [0n, deadline()], parseEther("0.01"))).toBe(
      "TradingClosed",
    );
    await send(5, token, erc20Abi, "approve", [curve, maxUint256]);
    expect(await revertName(5, curve, zonkCurveV3Abi, "sell", [parseEther("1000"), 0n, deadline()])).toBe(
      "TradingClosed",
    );
  });

  it("behavior: a buy of exactly the graduation gross has no refund", async () => {
    const { curve } = await launch(4, "Delta", "DEL");
    const receipt = await buy(6, curve, EXACT_GRADUATION_GROSS);
    const [bought] = parseEventLogs({ abi: zonkCurveV3Abi, logs: receipt.logs, eventName: "TokensBought" });
    expect(bought?.args).toMatchObject({
      acceptedGross: EXACT_GRADUATION_GROSS,
      refund: 0n,
      tokensOut: CURVE_ALLOCATION,
    });
    expect(await read(curve, zonkCurveV3Abi, "graduated")).toBe(true);
  });

  it("behavior: canonical pools trade after graduation in both token orders", async () => {
    // Find launch salts that give one token below WETH (token0) and one above (token1).
    const deployer = await read<Address>(
      deployment.contracts.factory,
      compiledFactoryAbi as Abi,
      "tokenDeployer",
    );
    const creator = localWalletClient(anvil.rpcUrl, 7).account.address;
    const found = new Map<boolean, { salt: Hex; symbol: string }>();
    for (let i = 0; found.size < 2 && i < 64; i++) {
      const salt = nextSalt();
      const symbol = `ORD${i}`;
      const seed = await read<Hex>(deployer, zonkTokenDeployerV3Abi as Abi, "computeLaunchSeed", [
        creator,
        salt,
        "Order",
        symbol,
      ]);
      const candidateSalt = await read<Hex>(deployer, zonkTokenDeployerV3Abi as Abi, "computeCandidateSalt", [
        seed,
        0,
      ]);
      const address = await read<Address>(deployer, zonkTokenDeployerV3Abi as Abi, "computeTokenAddress", [
        creator,
        "Order",
        symbol,
        candidateSalt,
      ]);
      const token0 = BigInt(address) < BigInt(deployment.contracts.weth);
      if (!found.has(token0)) found.set(token0, { salt, symbol });
    }
    expect(found.size).toBe(2);

    for (const tokenIsToken0 of [true, false]) {
      const pick = found.get(tokenIsToken0);
      if (!pick) throw new Error("no salt");
      const launched = await launch(7, "Order", pick.symbol, pick.salt);
      expect(launched.tokenIsToken0).toBe(tokenIsToken0);
      await buy(8, launched.curve, parseEther("3.1"));
      const trader = localWalletClient(anvil.rpcUrl, 8).account.address;

      // Buy tokens from the pool with ETH (the router wraps it).
      const amountIn = parseEther("0.1");
      const buyReceipt = await send(
        8,
        deployment.contracts.swapRouter,
        swapRouterAbi as Abi,
        "exactInputSingle",
        [
          {
            tokenIn: deployment.contracts.weth,
            tokenOut: launched.token,
            fee: 10_000,
            recipient: trader,
            deadline: deadline(),
            amountIn,
            amountOutMinimum: 0n,
            sqrtPriceLimitX96: 0n,
          },
        ],
        amountIn,
      );
      const [buySwap] = parseEventLogs({ abi: uniswapV3PoolAbi, logs: buyReceipt.logs, eventName: "Swap" });
      expect(lower(buySwap?.address ?? "")).toBe(lower(launched.pool));
      const { amount0, amount1, sqrtPriceX96 } = buySwap?.args ?? {
        amount0: 0n,
        amount1: 0n,
        sqrtPriceX96: 0n,
      };
      const [tokenDelta, wethDelta] = tokenIsToken0 ? [amount0, amount1] : [amount1, amount0];
      expect(wethDelta).toBe(amountIn);
      expect(tokenDelta < 0n).toBe(true);
      const priceAfterBuy = poolPriceFromSqrtPriceX96(sqrtPriceX96, tokenIsToken0) ?? 0n;
      expect(priceAfterBuy > TERMINAL_PRICE).toBe(true);

      // Sell some of them back for WETH.
      const tokensIn = -tokenDelta / 2n;
      await send(8, launched.token, erc20Abi, "approve", [deployment.contracts.swapRouter, tokensIn]);
      const sellReceipt = await send(
        8,
        deployment.contracts.swapRouter,
        swapRouterAbi as Abi,
        "exactInputSingle",
        [
          {
            tokenIn: launched.token,
            tokenOut: deployment.contracts.weth,
            fee: 10_000,
            recipient: trader,
            deadline: deadline(),
            amountIn: tokensIn,
            amountOutMinimum: 0n,
            sqrtPriceLimitX96: 0n,
          },
        ],
      );
      const [sellSwap] = parseEventLogs({ abi: uniswapV3PoolAbi, logs: sellReceipt.logs, eventName: "Swap" });
      const sellArgs = sellSwap?.args ?? { amount0: 0n, amount1: 0n, sqrtPriceX96: 0n };
      const [sellToken, sellWeth] = tokenIsToken0
        ? [sellArgs.amount0, sellArgs.amount1]
        : [sellArgs.amount1, sellArgs.amount0];
      expect(sellToken).toBe(tokensIn);
      expect(sellWeth < 0n).toBe(true);
      const priceAfterSell = poolPriceFromSqrtPriceX96(sellArgs.sqrtPriceX96, tokenIsToken0) ?? 0n;
      expect(priceAfterSell < priceAfterBuy).toBe(true);
    }
  });

  it("behavior: the factory picks the next CREATE2 candidate when the token's pool slot is already initialized", async () => {
    const deployer = await read<Address>(
      deployment.contracts.factory,
      compiledFactoryAbi as Abi,
      "tokenDeployer",
    );
    const creator = localWalletClient(anvil.rpcUrl, 2).account.address;
    const candidate = async (salt: Hex, index: number, symbol: string) => {
      const seed = await read<Hex>(deployer, zonkTokenDeployerV3Abi as Abi, "computeLaunchSeed", [
        creator,
        salt,
        "Taken",
        symbol,
      ]);
      const candidateSalt = await read<Hex>(deployer, zonkTokenDeployerV3Abi as Abi, "computeCandidateSalt", [
        seed,
        index,
      ]);
      const address = await read<Address>(deployer, zonkTokenDeployerV3Abi as Abi, "computeTokenAddress", [
        creator,
        "Taken",
        symbol,
        candidateSalt,
      ]);
      return { seed, candidateSalt, address };
    };
    const uniswap = deployment.contracts.uniswapV3Factory;
    const weth = deployment.contracts.weth;

    // Someone creates and initializes the pool of candidate 0 at another price: candidate 1 is used.
    const salt = nextSalt();
    const first = await candidate(salt, 0, "TKN");
    await send(3, uniswap, uniswapV3FactoryAbi as Abi, "createPool", [first.address, weth, 10_000]);
    const squatted = await read<Address>(uniswap, uniswapV3FactoryAbi as Abi, "getPool", [
      first.address,
      weth,
      10_000,
    ]);
    await send(3, squatted, uniswapV3PoolAbi as Abi, "initialize", [1n << 96n]);
    const second = await candidate(salt, 1, "TKN");
    const launched = await launch(2, "Taken", "TKN", salt);
    expect(launched.attemptIndex).toBe(1);
    expect(lower(launched.token)).toBe(lower(second.address));
    const [event] = parseEventLogs({
      abi: zonkFactoryV3Abi,
      logs: launched.receipt.logs,
      eventName: "TokenLaunchedV3",
    });
    expect(event?.args.launchSeed).toBe(first.seed);
    expect(event?.args.candidateSalt).toBe(second.candidateSalt);

    // An existing but uninitialized pool is taken over and initialized at the terminal price.
    const salt2 = nextSalt();
    const open = await candidate(salt2, 0, "TKN2");
    await send(3, uniswap, uniswapV3FactoryAbi as Abi, "createPool", [open.address, weth, 10_000]);
    const openPool = await read<Address>(uniswap, uniswapV3FactoryAbi as Abi, "getPool", [
      open.address,
      weth,
      10_000,
    ]);
    const reused = await launch(2, "Taken", "TKN2", salt2);
    expect(reused.attemptIndex).toBe(0);
    expect(lower(reused.pool)).toBe(lower(openPool));
    const [sqrtPriceX96] = await read<readonly [bigint]>(openPool, uniswapV3PoolAbi, "slot0");
    expect(sqrtPriceX96).toBe(
      reused.tokenIsToken0 ? TERMINAL_SQRT_PRICE_X96_TOKEN0 : TERMINAL_SQRT_PRICE_X96_TOKEN1,
    );
  });

  it("error: createToken reverts on bad names, symbols, a zero salt and duplicates", async () => {
    const factory = deployment.contracts.factory;
    const attempt = (name: string, symbol: string, salt: Hex = nextSalt()) =>
      revertName(1, factory, zonkFactoryV3Abi, "createToken", [name, symbol, salt]);
    expect(await attempt("", "X")).toBe("InvalidTokenName");
    expect(await attempt("n".repeat(65), "X")).toBe("InvalidTokenName");
    expect(await attempt("é".repeat(33), "X")).toBe("InvalidTokenName");
    expect(await attempt("Name", "")).toBe("InvalidTokenSymbol");
    expect(await attempt("Name", "S".repeat(17))).toBe("InvalidTokenSymbol");
    expect(await attempt("Name", "SYM", `0x${"00".repeat(32)}`)).toBe("InvalidUserSalt");
    expect(await attempt("n".repeat(64), "S".repeat(16))).toBeUndefined();
    await launch(1, "Dup", "DUP");
    expect(await attempt("Dup", "DUP")).toBe("DuplicateToken");
    // Another creator may use the same name and symbol.
    expect(
      await revertName(2, factory, zonkFactoryV3Abi, "createToken", ["Dup", "DUP", nextSalt()]),
    ).toBeUndefined();
  });

  it("error: curve trades revert past their deadline, below their minimum, and on dust", async () => {
    const { curve } = await launch(6, "Eps", "EPS");
    const past = 1n;
    expect(await revertName(6, curve, zonkCurveV3Abi, "buy", [0n, past], parseEther("0.01"))).toBe(
      "DeadlineExpired",
    );
    const quote = quoteBuy(INITIAL_CURVE_STATE, parseEther("0.01"));
    expect(
      await revertName(
        6,
        curve,
        zonkCurveV3Abi,
        "buy",
        [quote.tokensOut + 1n, deadline()],
        parseEther("0.01"),
      ),
    ).toBe("SlippageExceeded");
    expect(await revertName(6, curve, zonkCurveV3Abi, "buy", [0n, deadline()], 0n)).toBe("InvalidAmount");
    expect(await revertName(6, curve, zonkCurveV3Abi, "sell", [1n, 0n, deadline()])).toBe("InvalidAmount");
  });
});
