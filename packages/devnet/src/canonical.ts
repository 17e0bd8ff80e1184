// Contracts placed at Base mainnet's addresses on the devnet (anvil_setCode): WETH9 at the OP Stack
// predeploy, Uniswap's V3 factory, and (in deploy.ts) SwapRouter02 and QuoterV2. A client with
// Base's addresses built in (the platform's web app) then finds them where it looks.
import { uniswapV3FactoryAbi, uniswapV3FactoryBytecode, weth9Abi, weth9Bytecode } from "@tmi/contracts";
import { BASE_MAINNET } from "@tmi/shared/chain";
import { type Abi, type Address, type Chain, type Hex, type PublicClient, type Transport, toHex } from "viem";
import { localPublicClient, localWalletClient, rpc, waitForReceipt } from "./clients.js";

/** WETH on Base (the OP Stack predeploy `0x4200…0006`): where the 8453 devnet puts its WETH9. */
export const BASE_WETH = BASE_MAINNET.contracts.weth;
/** Uniswap's V3 factory on Base: where the 8453 devnet puts its UniswapV3Factory. */
export const BASE_UNISWAP_V3_FACTORY = BASE_MAINNET.contracts.uniswapV3Factory;

/**
 * Fee tiers of the Uniswap V3 factory (fee in hundredths of a bip → tick spacing): the three its
 * constructor enables and the 1 bp tier Uniswap's deploy-v3 adds (`ADD_1BP_FEE_TIER`) on every
 * chain it deploys to, Base included. The platform's pools use 10000 (1 %, spacing 200).
 */
export const UNISWAP_V3_FEE_TIERS: readonly (readonly [fee: number, tickSpacing: number])[] = [
  [500, 10],
  [3000, 60],
  [10000, 200],
  [100, 1],
];

/**
 * UniswapV3Factory storage (v3-core 1.0.1): `UniswapV3PoolDeployer.parameters` (slots 0–2, set
 * only during `createPool`), then `owner` (3), `feeAmountTickSpacing` (4), `getPool` (5).
 */
const FACTORY_OWNER_SLOT = 3;
/** WETH9 storage: `name` (0), `symbol` (1), `decimals` (2), set by its field initializers. */
const WETH9_INITIALIZED_SLOTS = 3;

/**
 * `runtime` (the code of a contract deployed at `from`) with every immutable that holds `from`
 * rewritten to hold `to`, so the code behaves at `to` as if deployed there (e.g. Uniswap's
 * `NoDelegateCall.original = address(this)`). Checked against the creation code: blanking the 20
 * bytes of every occurrence of `from` must give exactly the runtime template inside `creation`
 * (where immutables are zero until the constructor fills them), so every rewritten byte was an
 * immutable and nothing else in the code changes.
 * @throws Error when `from` does not occur, or an occurrence is not an immutable placeholder.
 */
export function relocateSelfImmutables(runtime: Hex, creation: Hex, from: Address, to: Address): Hex {
  const code = runtime.slice(2).toLowerCase();
  const needle = from.slice(2).toLowerCase();
  const offsets: number[] = [];
  for (let at = code.indexOf(needle); at >= 0; at = code.indexOf(needle, at + 1))
    if (at % 2 === 0) offsets.push(at);
  if (offsets.length === 0) throw new Error(`relocateSelfImmutables: ${from} is not in the runtime code`);
  const splice = (text: string, value: string) =>
    offsets.reduce((out, at) => out.slice(0, at) + value + out.slice(at + value.length), text);
  const template = splice(code, "0".repeat(40));
  if (!creation.toLowerCase().includes(template))
    throw new Error(
      `relocateSelfImmutables: not every occurrence of ${from} is an immutable of the creation code's runtime`,
    );
  return `0x${splice(code, to.slice(2).toLowerCase())}`;
}

/**
 * Copies the code of `from` and its storage `slots` to `to` (anvil_setCode, anvil_setStorageAt),
 * `code` replacing the copied code when given.
 */
export async function copyContract(
  rpcUrl: string,
  client: PublicClient<Transport, Chain>,
  from: Address,
  to: Address,
  slots: readonly number[],
  code?: Hex,
): Promise<void> {
  await rpc(rpcUrl, "anvil_setCode", [to, code ?? (await client.getCode({ address: from }))]);
  for (const slot of slots) {
    const value = await client.getStorageAt({ address: from, slot: toHex(slot, { size: 32 }) });
    await rpc(rpcUrl, "anvil_setStorageAt", [to, toHex(slot, { size: 32 }), value]);
  }
}

/**
 * Puts WETH9 at {@link BASE_WETH} and Uniswap's V3 factory at {@link BASE_UNISWAP_V3_FACTORY} (npm
 * bytecode) unless code is there already (a resumed chain), as Base has them:
 * - WETH9 (no immutables): deployed once, its code and initialized slots (name, symbol, decimals)
 *   copied;
 * - the factory: deployed once by `deployer`, its runtime code copied with the `NoDelegateCall`
 *   immutable rewritten to the new address ({@link relocateSelfImmutables}; without it every
 *   `createPool` there reverts), its `owner` slot copied (the deployer), then the owner enables
 *   {@link UNISWAP_V3_FEE_TIERS} with `enableFeeAmount`, as the constructor and Uniswap's
 *   deployment do (`FeeAmountEnabled` logs).
 * Pools the factory creates there are real CREATE2 children of that address, so the address the
 * periphery computes (factory, tokens, fee, Uniswap's pool init code hash) is the pool's.
 * @returns the two addresses.
 * @throws Error when a transaction fails, a check of the copy fails, or the node is not anvil.
 */
export async function placeBaseCore(
  rpcUrl: string,
  chainId: number,
  deployer: number | `0x${string}`,
): Promise<{ weth: Address; uniswapV3Factory: Address }> {
  const client = localPublicClient(rpcUrl, chainId);
  const wallet = localWalletClient(rpcUrl, deployer, chainId);
  const hasCode = async (address: Address) => {
    const code = await client.getCode({ address });
    return code !== undefined && code !== "0x";
  };
  const deploy = async (abi: Abi, bytecode: Hex): Promise<Address> => {
    const receipt = await waitForReceipt(
      client,
      await wallet.deployContract({ abi, bytecode, args: [] } as never),
    );
    if (receipt.status !== "success" || !receipt.contractAddress)
      throw new Error(`deployment reverted: ${receipt.transactionHash}`);
    return receipt.contractAddress;
  };

  if (!(await hasCode(BASE_WETH))) {
    const from = await deploy(weth9Abi, weth9Bytecode);
    await copyContract(
      rpcUrl,
      client,
      from,
      BASE_WETH,
      Array.from({ length: WETH9_INITIALIZED_SLOTS }, (_, i) => i),
    );
    const symbol = await client.readContract({ address: BASE_WETH, abi: weth9Abi, functionName: "symbol" });
    if (symbol !== "WETH") throw new Error(`WETH9 copied to ${BASE_WETH} answers symbol() ${symbol}`);
  }

  if (!(await hasCode(BASE_UNISWAP_V3_FACTORY))) {
    const from = await deploy(uniswapV3FactoryAbi, uniswapV3FactoryBytecode);
    const runtime = await client.getCode({ address: from });
    if (!runtime) throw new Error(`no code at the Uniswap V3 factory ${from}`);
    const code = relocateSelfImmutables(runtime, uniswapV3FactoryBytecode, from, BASE_UNISWAP_V3_FACTORY);
    await copyContract(rpcUrl, client, from, BASE_UNISWAP_V3_FACTORY, [FACTORY_OWNER_SLOT], code);
    const owner = await client.readContract({
      address: BASE_UNISWAP_V3_FACTORY,
      abi: uniswapV3FactoryAbi,
      functionName: "owner",
    });
    if (owner.toLowerCase() !== wallet.account.address.toLowerCase())
      throw new Error(`the Uniswap V3 factory copied to ${BASE_UNISWAP_V3_FACTORY} has owner ${owner}`);
    for (const [fee, tickSpacing] of UNISWAP_V3_FEE_TIERS) {
      const receipt = await waitForReceipt(
        client,
        await wallet.writeContract({
          address: BASE_UNISWAP_V3_FACTORY,
          abi: uniswapV3FactoryAbi,
          functionName: "enableFeeAmount",
          args: [fee, tickSpacing],
        }),
      );
      if (receipt.status !== "success") throw new Error(`enableFeeAmount(${fee}) reverted`);
    }
  }
  return { weth: BASE_WETH, uniswapV3Factory: BASE_UNISWAP_V3_FACTORY };
}
