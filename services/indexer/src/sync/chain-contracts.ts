import { aggregatorProxyAbi } from "@tmi/shared/chain";
import { encodeFunctionData } from "viem";
import type { IndexerConfig } from "../config.js";
import { FatalIndexerError } from "../errors.js";
import type { FeedContracts } from "../model/known-state.js";
import { decodeAddressResult, readImmutable, SELECTORS } from "../rpc/contract-reads.js";
import type { RpcClient } from "../rpc/rpc-client.js";

/** The platform contracts the indexer needs besides the factory, as configured or read from the chain. */
export interface ChainContracts {
  factory: string;
  graduationManager: string;
  feeManager: string | null;
  /**
   * The trader-rewards distributor the platform is bound to: the fee manager's
   * `traderRewardsVault()`'s `distributor()` (both set once at deployment); null when the fee
   * manager, its vault or the vault's distributor is not there (zero).
   */
  rewardsDistributor: string | null;
  /** The other token of every canonical pool (decides token0). */
  weth: string;
  /**
   * The ETH/USD feed: when the configured address is a Chainlink proxy (it answers `aggregator()`,
   * as on Base), the proxy and the aggregator of every phase it had (`phaseAggregators(1…phaseId)`,
   * the contracts that emit `AnswerUpdated`); else the configured address as the one aggregator.
   * null: no feed.
   */
  feed: FeedContracts | null;
}

/** Phases read at most from a proxy (Chainlink's feeds have had a handful). */
const MAX_FEED_PHASES = 1_000;

/**
 * Completes the configured addresses from the chain at the latest block (they never change):
 * `graduationManager()`/`feeManager()` of the factory, `weth()` of the graduation manager, the
 * trader-rewards distributor (the fee manager's `traderRewardsVault()`'s `distributor()`), the
 * feed's aggregators ({@link resolveFeed}).
 * @throws FatalIndexerError when the factory or manager does not answer (not the V3 factory on
 * this chain); RpcError when the node cannot be reached.
 */
export async function resolveChainContracts(rpc: RpcClient, config: IndexerConfig): Promise<ChainContracts> {
  const ask = async (to: string, data: string) =>
    (await readImmutable(rpc, [{ to, data }], "latest", undefined, { allowFailure: true }))[0] ?? null;
  const factory = config.FACTORY_ADDRESS;
  let graduationManager = config.GRADUATION_MANAGER_ADDRESS;
  if (!graduationManager) {
    const raw = await ask(factory, SELECTORS.graduationManager);
    if (!raw)
      throw new FatalIndexerError(
        `FACTORY_ADDRESS ${factory} does not answer graduationManager() on chain ${config.CHAIN_ID}: is it the zonk.fun V3 factory of this chain? (or set GRADUATION_MANAGER_ADDRESS and WETH_ADDRESS)`,
      );
    graduationManager = decodeAddressResult(raw);
  }
  let feeManager = config.FEE_MANAGER_ADDRESS;
  if (!feeManager) {
    const raw = await ask(factory, SELECTORS.feeManager);
    feeManager = raw ? decodeAddressResult(raw) : null;
  }
  let weth = config.WETH_ADDRESS;
  if (!weth) {
    const raw = await ask(graduationManager, SELECTORS.weth);
    if (!raw)
      throw new FatalIndexerError(
        `the graduation manager ${graduationManager} does not answer weth() on chain ${config.CHAIN_ID}; set WETH_ADDRESS`,
      );
    weth = decodeAddressResult(raw);
  }
  const feed = config.ETH_USD_FEED_ADDRESS ? await resolveFeed(rpc, config.ETH_USD_FEED_ADDRESS) : null;
  const nonZero = (raw: string | null) => {
    const address = raw && raw.length >= 66 ? decodeAddressResult(raw) : null;
    return address !== null && BigInt(address) !== 0n ? address : null;
  };
  const rewardsVault = feeManager ? nonZero(await ask(feeManager, SELECTORS.traderRewardsVault)) : null;
  const rewardsDistributor = rewardsVault ? nonZero(await ask(rewardsVault, SELECTORS.distributor)) : null;
  return { factory, graduationManager, feeManager, rewardsDistributor, weth, feed };
}

/**
 * The contracts of the feed at `address`, at the latest block: a Chainlink proxy (it answers
 * `aggregator()` and `phaseId()`) with the aggregator of every phase (`phaseAggregators(1…phaseId)`,
 * one batch; the aggregators replaced before or during the indexed history included), else
 * `address` as the one aggregator. Aggregators confirmed later are learned from the proxy's
 * `AggregatorConfirmed` while indexing.
 * @throws RpcError when the node cannot be reached.
 */
export async function resolveFeed(rpc: RpcClient, address: string): Promise<FeedContracts> {
  const ask = (calls: { to: string; data: string }[]) =>
    readImmutable(rpc, calls, "latest", undefined, { allowFailure: true });
  const [current, phase] = await ask([
    { to: address, data: SELECTORS.aggregator },
    { to: address, data: SELECTORS.phaseId },
  ]);
  if (!current) return { proxy: null, aggregators: [address] };
  const phases = phase ? Math.min(Number(BigInt(phase)), MAX_FEED_PHASES) : 0;
  const calls = Array.from({ length: phases }, (_, i) => ({
    to: address,
    data: encodeFunctionData({ abi: aggregatorProxyAbi, functionName: "phaseAggregators", args: [i + 1] }),
  }));
  const aggregators = new Set<string>();
  for (const raw of await ask(calls)) {
    const aggregator = raw ? decodeAddressResult(raw) : null;
    if (aggregator && BigInt(aggregator) !== 0n) aggregators.add(aggregator);
  }
  aggregators.add(decodeAddressResult(current));
  return { proxy: address, aggregators: [...aggregators] };
}
