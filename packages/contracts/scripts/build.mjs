#!/usr/bin/env node
// Builds @tmi/contracts: compiles contracts/**/*.sol with solc-js (standard JSON, imports resolved
// from node_modules, no network), gathers the Uniswap V3 and WETH9 artifacts from their npm packages,
// and writes ABIs (`as const`) and bytecode as TypeScript under src/generated/.
// Skips all work when the inputs hash matches src/generated/.stamp (use --force to rebuild).
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const contractsDir = join(packageDir, "contracts");
const outDir = join(packageDir, "src", "generated");
const stampFile = join(outDir, ".stamp");
const require = createRequire(join(packageDir, "package.json"));
const force = process.argv.includes("--force");
const quiet = process.argv.includes("--quiet");
const log = (msg) => {
  if (!quiet) console.log(`[contracts] ${msg}`);
};

const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.bytecode.linkReferences"] } },
};

/** Solidity contracts compiled here: source path (relative to contracts/) → exported name prefix. */
const COMPILED = [
  { file: "v3/ZonkFactoryV3.sol", contract: "ZonkFactoryV3", name: "zonkFactoryV3" },
  { file: "v3/ZonkDeployersV3.sol", contract: "ZonkTokenDeployerV3", name: "zonkTokenDeployerV3" },
  { file: "v3/ZonkTokenV3.sol", contract: "ZonkTokenV3", name: "zonkTokenV3" },
  { file: "v3/ZonkCurveV3.sol", contract: "ZonkCurveV3", name: "zonkCurveV3" },
  { file: "v3/FeeManagerV3.sol", contract: "FeeManagerV3", name: "feeManagerV3" },
  { file: "v3/GraduationManagerV3.sol", contract: "GraduationManagerV3", name: "graduationManagerV3" },
  { file: "v3/LPCustodianV3.sol", contract: "LPCustodianV3", name: "lpCustodianV3" },
  { file: "v3/ResidualEscrowV3.sol", contract: "ResidualEscrowV3", name: "residualEscrowV3" },
  { file: "v3/PermanentLPFeeVaultV3.sol", contract: "PermanentLPFeeVaultV3", name: "permanentLPFeeVaultV3" },
  { file: "v3/TokenCommunityVaultV3.sol", contract: "TokenCommunityVaultV3", name: "tokenCommunityVaultV3" },
  { file: "v3/TraderRewardsVaultV3.sol", contract: "TraderRewardsVaultV3", name: "traderRewardsVaultV3" },
  {
    file: "v3/TraderRewardsDistributorV3.sol",
    contract: "TraderRewardsDistributorV3",
    name: "traderRewardsDistributorV3",
  },
  { file: "test/DevnetAggregator.sol", contract: "DevnetAggregator", name: "devnetAggregator" },
  {
    file: "test/DevnetAggregatorProxy.sol",
    contract: "DevnetAggregatorProxy",
    name: "devnetAggregatorProxy",
  },
  { file: "test/DevnetSmartWallet.sol", contract: "DevnetSmartWallet", name: "devnetSmartWallet" },
  {
    file: "test/DevnetSmartWallet.sol",
    contract: "DevnetSmartWalletFactory",
    name: "devnetSmartWalletFactory",
  },
  {
    file: "test/DevnetBackgroundEmitter.sol",
    contract: "DevnetBackgroundEmitter",
    name: "devnetBackgroundEmitter",
  },
  {
    file: "test/DevnetSequencerUptimeFeed.sol",
    contract: "DevnetSequencerUptimeFeed",
    name: "devnetSequencerUptimeFeed",
  },
];

/** Prebuilt artifacts from npm packages: package-relative artifact path → exported name prefix. */
const PREBUILT = [
  {
    pkg: "@uniswap/v3-core",
    path: "artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json",
    name: "uniswapV3Factory",
  },
  {
    pkg: "@uniswap/v3-core",
    path: "artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json",
    name: "uniswapV3Pool",
  },
  {
    pkg: "@uniswap/v3-periphery",
    path: "artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
    name: "nonfungiblePositionManager",
  },
  {
    pkg: "@uniswap/v3-periphery",
    path: "artifacts/contracts/NonfungibleTokenPositionDescriptor.sol/NonfungibleTokenPositionDescriptor.json",
    name: "nonfungibleTokenPositionDescriptor",
  },
  {
    pkg: "@uniswap/v3-periphery",
    path: "artifacts/contracts/libraries/NFTDescriptor.sol/NFTDescriptor.json",
    name: "nftDescriptor",
  },
  {
    pkg: "@uniswap/v3-periphery",
    path: "artifacts/contracts/SwapRouter.sol/SwapRouter.json",
    name: "swapRouter",
  },
  {
    pkg: "@uniswap/v3-periphery",
    path: "artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json",
    name: "quoterV2",
  },
  {
    pkg: "@uniswap/swap-router-contracts",
    path: "artifacts/contracts/SwapRouter02.sol/SwapRouter02.json",
    name: "swapRouter02",
  },
  { pkg: "@uniswap/v2-periphery", path: "build/WETH9.json", name: "weth9" },
];

function packageRoot(pkg) {
  return dirname(require.resolve(`${pkg}/package.json`));
}

function listSol(dir) {
  const out = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...listSol(full));
    else if (entry.endsWith(".sol")) out.push(full);
  }
  return out;
}

function inputsHash() {
  const hash = createHash("sha256");
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  for (const file of listSol(contractsDir)) {
    hash.update(relative(contractsDir, file));
    hash.update(readFileSync(file));
  }
  for (const pkg of [
    "solc",
    "@openzeppelin/contracts",
    "@chainlink/contracts",
    "@uniswap/v3-core",
    "@uniswap/v3-periphery",
    "@uniswap/v2-periphery",
    "@uniswap/swap-router-contracts",
  ]) {
    hash.update(`${pkg}@${JSON.parse(readFileSync(join(packageRoot(pkg), "package.json"), "utf8")).version}`);
  }
  return hash.digest("hex");
}

function upToDate(hash) {
  if (force || !existsSync(stampFile)) return false;
  if (readFileSync(stampFile, "utf8").trim() !== hash) return false;
  return (
    [...COMPILED, ...PREBUILT].every((c) => existsSync(join(outDir, `${kebab(c.name)}.ts`))) &&
    existsSync(join(outDir, "index.ts"))
  );
}

/** Resolves an import (`@scope/pkg/path.sol` or a path relative to contracts/) to its source. */
function findImport(path) {
  const local = join(contractsDir, path);
  if (existsSync(local)) return { contents: readFileSync(local, "utf8") };
  const parts = path.split("/");
  const pkg = path.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  const rest = parts.slice(pkg.split("/").length).join("/");
  try {
    const file = join(packageRoot(pkg), rest);
    if (existsSync(file)) return { contents: readFileSync(file, "utf8") };
  } catch {
    // fall through
  }
  return { error: `import not found: ${path}` };
}

/** `launchpadToken` → `launchpad-token` (file names are kebab-case). */
function kebab(name) {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
}

function writeAtomic(file, text) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

function tsModule(name, abi, bytecode, linkReferences, comment) {
  let text = `// Generated by packages/contracts/scripts/build.mjs. Do not edit.\n// ${comment}\n\n`;
  text += `export const ${name}Abi = ${JSON.stringify(abi, null, 2)} as const;\n\n`;
  text += `/** Creation bytecode${linkReferences && Object.keys(linkReferences).length ? " (unlinked: see the link references)" : ""}. */\n`;
  text += `export const ${name}Bytecode: \`0x\${string}\` = "${bytecode.startsWith("0x") ? bytecode : `0x${bytecode}`}";\n`;
  if (linkReferences && Object.keys(linkReferences).length) {
    text += `\n/** Library placeholders in the bytecode: source → library → byte offsets (start, length). */\n`;
    text += `export const ${name}LinkReferences = ${JSON.stringify(linkReferences)} as const;\n`;
  }
  return text;
}

async function main() {
  const started = Date.now();
  const hash = inputsHash();
  if (upToDate(hash)) {
    log("up to date");
    return;
  }
  const solc = require("solc");
  const sources = {};
  for (const file of listSol(contractsDir)) {
    sources[relative(contractsDir, file).split("\\").join("/")] = { content: readFileSync(file, "utf8") };
  }
  const input = { language: "Solidity", sources, settings: SOLC_SETTINGS };
  log(`compiling ${Object.keys(sources).length} sources with solc ${solc.version()}`);
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport }));
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  for (const e of output.errors ?? []) {
    if (e.severity !== "error" && !quiet) console.warn(e.formattedMessage);
  }
  if (errors.length) {
    for (const e of errors) console.error(e.formattedMessage);
    throw new Error(`solc: ${errors.length} error(s)`);
  }

  mkdirSync(outDir, { recursive: true });
  const names = [];
  for (const c of COMPILED) {
    const compiled = output.contracts?.[c.file]?.[c.contract];
    if (!compiled) throw new Error(`missing compiler output for ${c.file}:${c.contract}`);
    const bytecode = compiled.evm.bytecode.object;
    writeAtomic(
      join(outDir, `${kebab(c.name)}.ts`),
      tsModule(
        c.name,
        compiled.abi,
        bytecode,
        compiled.evm.bytecode.linkReferences,
        `contracts/${c.file} (solc ${solc.version()})`,
      ),
    );
    names.push(c.name);
  }
  const { keccak256 } = await import("viem");
  let poolInitCodeHash;
  for (const p of PREBUILT) {
    const root = packageRoot(p.pkg);
    const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
    const artifact = JSON.parse(readFileSync(join(root, p.path), "utf8"));
    const bytecode = typeof artifact.bytecode === "string" ? artifact.bytecode : artifact.evm.bytecode.object;
    const normalized = bytecode.startsWith("0x") ? bytecode : `0x${bytecode}`;
    if (p.name === "uniswapV3Pool") poolInitCodeHash = keccak256(normalized);
    writeAtomic(
      join(outDir, `${kebab(p.name)}.ts`),
      tsModule(p.name, artifact.abi, normalized, artifact.linkReferences, `${p.pkg}@${version} ${p.path}`),
    );
    names.push(p.name);
  }
  let index = "// Generated by packages/contracts/scripts/build.mjs. Do not edit.\n\n";
  for (const n of names) index += `export * from "./${kebab(n)}.js";\n`;
  index += `\n/** keccak256 of the Uniswap V3 pool creation code (pool address derivation). */\n`;
  index += `export const POOL_INIT_CODE_HASH: \`0x\${string}\` = "${poolInitCodeHash}";\n`;
  writeAtomic(join(outDir, "index.ts"), index);
  writeAtomic(stampFile, `${hash}\n`);
  log(
    `wrote ${names.length} artifacts to ${relative(process.cwd(), outDir) || outDir} in ${Date.now() - started} ms`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
