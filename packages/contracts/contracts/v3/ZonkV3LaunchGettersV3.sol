// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ZonkV3Constants as C} from "./ZonkV3Constants.sol";

/// @title ZonkV3LaunchGettersV3
/// @notice The launch family's protocol version and supply split as public getters, the same on the
/// factory and on every curve.
abstract contract ZonkV3LaunchGettersV3 {
    string public constant PROTOCOL_VERSION = C.PROTOCOL_VERSION;
    uint256 public constant TOTAL_SUPPLY = C.TOTAL_SUPPLY;
    uint256 public constant CURVE_ALLOCATION = C.CURVE_ALLOCATION;
    uint256 public constant LP_ALLOCATION = C.LP_ALLOCATION;
}
