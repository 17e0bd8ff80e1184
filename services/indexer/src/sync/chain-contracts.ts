import type { IndexerConfig } from "../config.js";
import { decodeAddressResult, readImmutable, SELECTORS } from "../rpc/contract-reads.js";
import type { RpcClient } from "../rpc/rpc-client.js";
import { FatalIndexerError } from "./reorg-reconciler.js";

/** The platform contracts the indexer needs besides the factory, as configured or read from the chain. */
export interface ChainContracts {
  factory: string;
  graduationManager: string;
  feeManager: string | null;
  /** The other token of every canonical pool (decides token0). */
  weth: string;
  /**
   * Emitter of the ETH/USD `AnswerUpdated` logs: the configured feed, or — when it is a Chainlink
   * proxy (it answers `aggregator()`, as on Base) — the aggregator behind it, which is the contract
   * that emits them. null: no feed.
   */
  feedEmitter: string | null;
}

/**
 * Completes the configured addresses from the chain at the latest block (they never change):
 * `graduationManager()`/`feeManager()` of the factory, `weth()` of the graduation manager,
 * `aggregator()` of the feed.
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
  let feedEmitter = config.ETH_USD_FEED_ADDRESS;
  if (feedEmitter) {
    const raw = await ask(feedEmitter, SELECTORS.aggregator);
    if (raw) feedEmitter = decodeAddressResult(raw);
  }
  return { factory, graduationManager, feeManager, weth, feedEmitter };
}
