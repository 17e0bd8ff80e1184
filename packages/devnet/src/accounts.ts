import { type Chain, defineChain } from "viem";

/**
 * Default chain id of the devnet (anvil's default). `pnpm devnet` / `pnpm start` take another one
 * from the `DEVNET_CHAIN_ID` setting (e.g. 8453, so that a client that accepts only Base runs
 * against the devnet); see {@link parseDevnetChainId}.
 */
export const DEVNET_CHAIN_ID = 31337;

/**
 * The devnet chain id from a setting's text (`DEVNET_CHAIN_ID`, `--chain-id`): {@link DEVNET_CHAIN_ID}
 * when unset or empty.
 * @throws Error when the text is not a positive integer below 2^53.
 */
export function parseDevnetChainId(value: string | undefined, name = "DEVNET_CHAIN_ID"): number {
  if (value === undefined || value.trim() === "") return DEVNET_CHAIN_ID;
  const id = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(id) || id < 1)
    throw new Error(`${name}: expected a positive integer chain id, got "${value}"`);
  return id;
}

/** anvil's default mnemonic: its first accounts are funded with 10,000 ETH each. */
export const DEVNET_MNEMONIC = "test test test test test test test test test test test junk";

const DEFAULT_KEYS = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
  "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
  "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
  "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97",
  "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
] as const;

const DEFAULT_ADDRESSES = [
  "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
  "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc",
  "0x90f79bf6eb2c4f870365e785982e1f101e93b906",
  "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65",
  "0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc",
  "0x976ea74026e726554db657fa54763abd0c3a0aa9",
  "0x14dc79964da2c08b23698b3d3cc7ca32193d9955",
  "0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f",
  "0xa0ee7a142d267c1f36714e4a8f75612f20a79720",
] as const;

/**
 * The ten funded accounts of anvil's default mnemonic (addresses lowercase).
 * Roles on the devnet: 0 deploys the contracts, 9 updates the feeds ({@link setEthUsdRound});
 * the simulator and the history loader use wallets of their own. Tests should trade with 1–8.
 */
export function devnetAccounts(): { address: `0x${string}`; privateKey: `0x${string}` }[] {
  return DEFAULT_KEYS.map((privateKey, i) => ({ address: DEFAULT_ADDRESSES[i]!, privateKey }));
}

/** Index of the deployer account in {@link devnetAccounts}. */
export const DEPLOYER_ACCOUNT = 0;
/** Index of the account that sends feed updates in {@link devnetAccounts}. */
export const FEED_ACCOUNT = 9;
/** Receives the protocol's fees on the devnet (the fee manager's treasury; an address nobody trades with). */
export const DEVNET_PROTOCOL_FEE_RECIPIENT = "0x00000000000000000000000000000000000fee01" as const;

/** A viem chain for the devnet at `rpcUrl`. */
export function devnetChain(rpcUrl: string, chainId: number = DEVNET_CHAIN_ID): Chain {
  return defineChain({
    id: chainId,
    name: "tmi-devnet",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}
