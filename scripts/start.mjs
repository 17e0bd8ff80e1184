#!/usr/bin/env node
// `pnpm start`: the whole system on one machine (README "Quick start", docs/operations.md).
//
// Devnet mode (default): installs what is missing, builds what is stale, checks PostgreSQL and
// Redis, starts the devnet (anvil + deployment + traffic simulator unless SIMULATE=false) with its
// state kept under .data/, makes sure the database belongs to that chain (a new chain gets a new
// database, never an old one), applies migrations, starts the indexer, query-api, metadata-api and
// its worker, oracle-price and the gateway, waits until the gateway serves indexed trades and
// prints the base URL with a few example requests. Ctrl-C (SIGINT) or SIGTERM stops the services,
// then the devnet (which saves its state). If this process dies any other way (`kill -9`), every
// child stops by itself: none keeps running or holding its port.
//
// Real-chain mode: with RPC_URL set and either FACTORY_ADDRESS + START_BLOCK (CHAIN_ID optional:
// read from the node) or NETWORK=base, no devnet and no simulator: the same services index and
// serve that chain.
//
// One module per step under scripts/start/ (settings.mjs lists the settings). This file uses Node
// built-ins only: it installs the workspace's dependencies first, then loads the modules that use
// them (pg, ioredis, viem).
import { ensureInstalled, ensureNode } from "./start/install.mjs";

ensureNode();
ensureInstalled();
await import("./start/main.mjs");
