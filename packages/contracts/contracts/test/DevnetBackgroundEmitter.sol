// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DevnetBackgroundEmitter (test contract, not for production)
/// @notice Unrelated chain traffic for the devnet, as on Base: one call emits many ERC-20
/// `Transfer` and Uniswap V3 `Swap` logs with the standard signatures, from this contract (not one
/// of the platform's), so that an indexer's log queries meet the volume of a busy chain. The
/// arguments are made up from `seed` and the log's index; no balances or pools exist behind them.
contract DevnetBackgroundEmitter {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Swap(
        address indexed sender,
        address indexed recipient,
        int256 amount0,
        int256 amount1,
        uint160 sqrtPriceX96,
        uint128 liquidity,
        int24 tick
    );

    /// @notice Emits `transfers` `Transfer` logs, then `swaps` `Swap` logs.
    /// @param seed varies the made-up addresses and amounts between calls.
    function emitBackground(uint256 transfers, uint256 swaps, uint256 seed) external {
        for (uint256 i = 0; i < transfers; i++) {
            uint256 x = uint256(keccak256(abi.encode(seed, i)));
            emit Transfer(address(uint160(x)), address(uint160(x >> 96)), x >> 160);
        }
        for (uint256 i = 0; i < swaps; i++) {
            uint256 x = uint256(keccak256(abi.encode(seed, ~i)));
            int256 amount = int256(x >> 192);
            emit Swap(
                address(uint160(x)),
                address(uint160(x >> 32)),
                amount,
                -amount / 2,
                uint160(1 << 96),
                uint128(x >> 128),
                int24(int256(i % 1000))
            );
        }
    }
}
