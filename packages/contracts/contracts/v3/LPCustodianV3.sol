// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {INonfungiblePositionManagerLike} from "./IZonkV3.sol";
import {ZonkV3Constants as C} from "./ZonkV3Constants.sol";

/// @title LPCustodianV3
/// @notice Ownerless holder of one token's graduation position NFT. It has no path to transfer the
/// NFT or remove liquidity; anyone can collect the position's trading fees to the fee recipient.
contract LPCustodianV3 {
    event PermanentPositionRegistered(
        address indexed launchToken,
        uint256 indexed tokenId,
        address indexed positionManager,
        int24 tickLower,
        int24 tickUpper
    );
    event PermanentFeesCollected(uint256 indexed tokenId, uint256 amount0, uint256 amount1);

    error Unauthorized();
    error AlreadyRegistered();
    error InvalidPosition();
    error PositionNotRegistered();

    address public immutable launchToken;
    address public immutable graduationManager;
    address public immutable nonfungiblePositionManager;
    address public immutable feeRecipient;
    uint256 public positionTokenId;

    constructor(address launchToken_, address positionManager_, address feeRecipient_) {
        launchToken = launchToken_;
        graduationManager = msg.sender;
        nonfungiblePositionManager = positionManager_;
        feeRecipient = feeRecipient_;
    }

    /// @notice Records the NFT the graduation manager minted to this custodian. Once.
    function bindPosition(uint256 tokenId) external {
        if (msg.sender != graduationManager) revert Unauthorized();
        if (positionTokenId != 0) revert AlreadyRegistered();
        if (INonfungiblePositionManagerLike(nonfungiblePositionManager).ownerOf(tokenId) != address(this)) {
            revert InvalidPosition();
        }
        positionTokenId = tokenId;
        emit PermanentPositionRegistered(
            launchToken, tokenId, nonfungiblePositionManager, C.FULL_RANGE_TICK_LOWER, C.FULL_RANGE_TICK_UPPER
        );
    }

    /// @notice Collects the position's accrued trading fees (never principal) to the fee recipient.
    function collectFees() external returns (uint256 amount0, uint256 amount1) {
        if (positionTokenId == 0) revert PositionNotRegistered();
        (amount0, amount1) = INonfungiblePositionManagerLike(nonfungiblePositionManager).collect(
            INonfungiblePositionManagerLike.CollectParams({
                tokenId: positionTokenId,
                recipient: feeRecipient,
                amount0Max: type(uint128).max,
                amount1Max: type(uint128).max
            })
        );
        emit PermanentFeesCollected(positionTokenId, amount0, amount1);
    }
}
