import { createConfig, factory } from "ponder";
import { curveAbi, factoryAbi, poolAbi } from "./abis";

// Settings come from `bench/ponder.ts`: the devnet's RPC, chain id, factory and start block.
const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};
const factoryAddress = env("PONDER_FACTORY") as `0x${string}`;
const startBlock = Number(env("PONDER_START_BLOCK"));
const launched = factoryAbi[0];

export default createConfig({
  database: { kind: "postgres", connectionString: env("DATABASE_URL") },
  chains: { devnet: { id: Number(env("PONDER_CHAIN_ID")), rpc: env("PONDER_RPC_URL"), disableCache: true } },
  contracts: {
    Factory: { chain: "devnet", abi: factoryAbi, address: factoryAddress, startBlock },
    Curve: {
      chain: "devnet",
      abi: curveAbi,
      address: factory({ address: factoryAddress, event: launched, parameter: "curve" }),
      startBlock,
    },
    Pool: {
      chain: "devnet",
      abi: poolAbi,
      address: factory({ address: factoryAddress, event: launched, parameter: "canonicalPool" }),
      startBlock,
    },
  },
});
