// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ZonkV3Constants} from "./ZonkV3Constants.sol";

/// @title ZonkTokenV3
/// @notice Fixed-supply launch token (18 decimals). The factory mints the whole supply once, to
/// the token's curve, right after both are deployed.
contract ZonkTokenV3 is ERC20 {
    address public immutable factory;
    address public immutable creator;
    bool public initialized;

    error OnlyFactory();
    error AlreadyInitialized();

    constructor(address factory_, address creator_, string memory name_, string memory symbol_)
        ERC20(name_, symbol_)
    {
        factory = factory_;
        creator = creator_;
    }

    /// @notice Mints the total supply to `inventoryOwner` (the curve). Factory only, once.
    function initialize(address inventoryOwner) external {
        if (msg.sender != factory) revert OnlyFactory();
        if (initialized) revert AlreadyInitialized();
        initialized = true;
        _mint(inventoryOwner, ZonkV3Constants.TOTAL_SUPPLY);
    }
}
