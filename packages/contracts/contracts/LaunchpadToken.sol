// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title LaunchpadToken
/// @notice Fixed-supply ERC-20 (18 decimals) created by the reference {Launchpad}. The whole supply is
/// minted once, at construction, to the launchpad. The launchpad is a trusted spender: it moves a
/// seller's tokens during `Launchpad.sell` without a prior `approve` (it only ever moves tokens of the
/// account that calls `sell`). Every other spender needs an allowance as usual.
contract LaunchpadToken is ERC20 {
    /// @notice The launchpad that created this token and holds the unsold supply.
    address public immutable launchpad;

    constructor(string memory name_, string memory symbol_, uint256 supply_) ERC20(name_, symbol_) {
        launchpad = msg.sender;
        _mint(msg.sender, supply_);
    }

    function _spendAllowance(address owner, address spender, uint256 value) internal override {
        if (spender == launchpad) return;
        super._spendAllowance(owner, spender, value);
    }
}
