// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title ResidualEscrowV3
/// @notice Ownerless, permanent home of what the graduation position mint could not use (integer
/// rounding dust of the token and WETH). Only the graduation manager records deposits; nothing
/// can leave.
contract ResidualEscrowV3 {
    event ResidualDeposited(address indexed launchToken, address indexed asset, uint256 amount);

    error Unauthorized();
    error UnsupportedAsset();
    error InsufficientBacking();

    address public immutable launchToken;
    address public immutable weth;
    address public immutable graduationManager;
    mapping(address asset => uint256 amount) public depositedResidual;

    constructor(address launchToken_, address weth_) {
        launchToken = launchToken_;
        weth = weth_;
        graduationManager = msg.sender;
    }

    /// @notice Records `amount` of `asset` already transferred here by the graduation manager.
    function deposit(address asset, uint256 amount) external {
        if (msg.sender != graduationManager) revert Unauthorized();
        if (asset != launchToken && asset != weth) revert UnsupportedAsset();
        uint256 total = depositedResidual[asset] + amount;
        if (IERC20(asset).balanceOf(address(this)) < total) revert InsufficientBacking();
        depositedResidual[asset] = total;
        emit ResidualDeposited(launchToken, asset, amount);
    }
}
