// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {LPFeeEcosystemVaultV3} from "./LPFeeEcosystemVaultV3.sol";

/// @title PermanentLPFeeVaultV3
/// @notice The deployment's one permanent LP fee vault: the graduation positions' custodians
/// collect their trading fees (the launch token and WETH) into it and record each collected
/// amount, which is split between the token's creator (35 %), its community (20 %), trader rewards
/// (15 %) and the protocol (the rest). The community and trader-rewards shares are forwarded on
/// request to the deployment's community vault and trader-rewards vault (created here; the
/// getters `communityVault()` / `traderRewardsVault()`), which then hold them. It holds what it
/// accrues: a holder of every graduated token whose fees were collected, and a platform contract,
/// never a token holder (nor are the two vaults).
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
    event CommunityLPFeesForwarded(
        address indexed launchToken, address indexed asset, address indexed vault, uint256 amount, address caller
    );
    event TraderRewardsLPFeesForwarded(
        address indexed launchToken, address indexed asset, address indexed vault, uint256 amount, address caller
    );

    error Unauthorized();
    error UnknownCustodian();
    error InsufficientBacking();
    error NothingToForward();

    struct Registration {
        address launchToken;
        address creator;
    }

    address public immutable graduationManager;
    address public immutable protocolRecipient;
    /// @notice Where the community shares are forwarded (`fundCommunityVault`).
    address public immutable communityVault;
    /// @notice Where the trader-rewards shares are forwarded (`fundTraderRewardsVault`).
    address public immutable traderRewardsVault;
    mapping(address custodian => Registration) public registrationOf;
    mapping(address asset => uint256 amount) public accountedOf;
    mapping(address launchToken => mapping(address asset => uint256 amount)) public creatorAccrued;
    mapping(address asset => uint256 amount) public protocolAccrued;
    mapping(address launchToken => mapping(address asset => uint256 amount)) public communityAccrued;
    mapping(address launchToken => mapping(address asset => uint256 amount)) public traderRewardsAccrued;

    constructor(address protocolRecipient_) {
        graduationManager = msg.sender;
        protocolRecipient = protocolRecipient_;
        communityVault = address(new LPFeeEcosystemVaultV3());
        traderRewardsVault = address(new LPFeeEcosystemVaultV3());
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
        uint256 creatorShare = amount * 35 / 100;
        uint256 communityShare = amount * 20 / 100;
        uint256 traderRewardsShare = amount * 15 / 100;
        uint256 protocolShare = amount - creatorShare - communityShare - traderRewardsShare;
        creatorAccrued[r.launchToken][asset] += creatorShare;
        protocolAccrued[asset] += protocolShare;
        communityAccrued[r.launchToken][asset] += communityShare;
        traderRewardsAccrued[r.launchToken][asset] += traderRewardsShare;
        emit PermanentLPFeesAccrued(
            r.launchToken,
            msg.sender,
            asset,
            protocolRecipient,
            r.creator,
            creatorShare,
            protocolShare,
            communityShare,
            traderRewardsShare
        );
    }

    /// @notice Forwards `launchToken`'s accrued community share of `asset` to the community vault.
    function fundCommunityVault(address launchToken, address asset) external returns (uint256 amount) {
        amount = _forward(communityAccrued, communityVault, launchToken, asset);
        emit CommunityLPFeesForwarded(launchToken, asset, communityVault, amount, msg.sender);
    }

    /// @notice Forwards `launchToken`'s accrued trader-rewards share of `asset` to the trader-rewards vault.
    function fundTraderRewardsVault(address launchToken, address asset) external returns (uint256 amount) {
        amount = _forward(traderRewardsAccrued, traderRewardsVault, launchToken, asset);
        emit TraderRewardsLPFeesForwarded(launchToken, asset, traderRewardsVault, amount, msg.sender);
    }

    function _forward(
        mapping(address => mapping(address => uint256)) storage accrued,
        address vault,
        address launchToken,
        address asset
    ) private returns (uint256 amount) {
        amount = accrued[launchToken][asset];
        if (amount == 0) revert NothingToForward();
        accrued[launchToken][asset] = 0;
        accountedOf[asset] -= amount;
        if (!IERC20(asset).transfer(vault, amount)) revert InsufficientBacking();
        LPFeeEcosystemVaultV3(vault).recordERC20Funding(launchToken, asset, amount);
    }
}
