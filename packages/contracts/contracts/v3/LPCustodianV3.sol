// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {INonfungiblePositionManagerLike} from "./IZonkV3.sol";
import {ZonkV3Constants as C} from "./ZonkV3Constants.sol";
import {PermanentLPFeeVaultV3} from "./PermanentLPFeeVaultV3.sol";

/// @title LPCustodianV3
/// @notice Ownerless holder of one token's graduation position NFT. It has no path to transfer the
/// NFT or remove liquidity; anyone can collect the position's trading fees into the deployment's
/// permanent LP fee vault.
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
    address public immutable feeVault;
    address public immutable weth;
    uint256 public positionTokenId;

    constructor(address launchToken_, address positionManager_, address feeVault_, address weth_) {
        launchToken = launchToken_;
        graduationManager = msg.sender;
        nonfungiblePositionManager = positionManager_;
        feeVault = feeVault_;
        weth = weth_;
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

    /// @notice Collects the position's accrued trading fees (never principal) into the fee vault,
    /// which splits each asset's amount (`notifyPermanentLPFees` → `PermanentLPFeesAccrued`).
    function collectFees() external returns (uint256 amount0, uint256 amount1) {
        if (positionTokenId == 0) revert PositionNotRegistered();
        (amount0, amount1) = INonfungiblePositionManagerLike(nonfungiblePositionManager).collect(
            INonfungiblePositionManagerLike.CollectParams({
                tokenId: positionTokenId,
                recipient: feeVault,
                amount0Max: type(uint128).max,
                amount1Max: type(uint128).max
            })
        );
        PermanentLPFeeVaultV3(feeVault).notifyPermanentLPFees(launchToken, amount0, amount1);
        emit PermanentFeesCollected(positionTokenId, amount0, amount1);
    }
}
