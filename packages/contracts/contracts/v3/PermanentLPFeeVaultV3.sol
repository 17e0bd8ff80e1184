// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title PermanentLPFeeVaultV3
/// @notice The deployment's one permanent LP fee vault: the graduation positions' custodians
/// collect their trading fees (the launch token and WETH) into it and record each collected
/// amount, which is split between the token's creator and the protocol (the community and
/// trader-rewards shares are zero on this devnet). It holds what it accrues: a holder of every
/// graduated token whose fees were collected, and a platform contract, never a token holder.
contract PermanentLPFeeVaultV3 {
    event PermanentLPFeesAccrued(
        address indexed launchToken,
        address indexed custodian,
        address indexed asset,
        address protocolRecipient,
        address creatorRecipient,
        uint256 creatorShare,
        uint256 protocolShare,
        uint256 communityShare,
        uint256 traderRewardsShare
    );

    error Unauthorized();
    error UnknownCustodian();
    error InsufficientBacking();

    struct Registration {
        address launchToken;
        address creator;
    }

    address public immutable graduationManager;
    address public immutable protocolRecipient;
    mapping(address custodian => Registration) public registrationOf;
    mapping(address asset => uint256 amount) public accountedOf;
    mapping(address launchToken => mapping(address asset => uint256 amount)) public creatorAccrued;
    mapping(address asset => uint256 amount) public protocolAccrued;

    constructor(address protocolRecipient_) {
        graduationManager = msg.sender;
        protocolRecipient = protocolRecipient_;
    }

    /// @notice Registers a graduation's custodian; by the graduation manager, in the graduation.
    function registerCustodian(address custodian, address launchToken, address creator) external {
        if (msg.sender != graduationManager) revert Unauthorized();
        registrationOf[custodian] = Registration({launchToken: launchToken, creator: creator});
    }

    /// @notice Records `amount` of `asset` a registered custodian has just collected into the vault.
    function accrue(address asset, uint256 amount) external {
        Registration memory r = registrationOf[msg.sender];
        if (r.launchToken == address(0)) revert UnknownCustodian();
        uint256 total = accountedOf[asset] + amount;
        if (IERC20(asset).balanceOf(address(this)) < total) revert InsufficientBacking();
        accountedOf[asset] = total;
        uint256 creatorShare = amount / 2;
        uint256 protocolShare = amount - creatorShare;
        creatorAccrued[r.launchToken][asset] += creatorShare;
        protocolAccrued[asset] += protocolShare;
        emit PermanentLPFeesAccrued(
            r.launchToken, msg.sender, asset, protocolRecipient, r.creator, creatorShare, protocolShare, 0, 0
        );
    }
}
