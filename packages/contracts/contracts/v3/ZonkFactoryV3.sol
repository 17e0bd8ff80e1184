// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IZonkFeeManagerV3, IZonkGraduationManagerV3, IZonkTokenV3} from "./IZonkV3.sol";
import {ZonkCurveDeployerV3, ZonkTokenDeployerV3} from "./ZonkDeployersV3.sol";
import {ZonkV3Constants as C} from "./ZonkV3Constants.sol";
import {ZonkV3LaunchGettersV3} from "./ZonkV3LaunchGettersV3.sol";

/// @title ZonkFactoryV3
/// @notice Launches tokens of the `endpoint-cp-v3` family: one transaction deploys the token
/// (CREATE2 at an address whose canonical pool slot is free) and its curve, mints the whole supply to
/// the curve, registers the token with the fee manager and the launch with the graduation manager
/// (which creates and initializes the canonical pool), and emits `TokenLaunchedV3` as its last log.
contract ZonkFactoryV3 is ZonkV3LaunchGettersV3 {
    struct TokenInfo {
        address creator;
        address curve;
    }

    event TokenLaunchedV3(
        address indexed creator,
        address indexed token,
        address indexed curve,
        string protocolVersion,
        uint256 totalSupply,
        uint256 curveAllocation,
        uint256 lpAllocation,
        address initialCreatorPayout,
        address canonicalPool,
        bytes32 launchSeed,
        bytes32 candidateSalt,
        uint16 attemptIndex
    );

    error DuplicateToken();
    error InvalidTokenName();
    error InvalidTokenSymbol();
    error InvalidUserSalt();
    error InventoryMismatch();

    IZonkFeeManagerV3 public immutable feeManager;
    IZonkGraduationManagerV3 public immutable graduationManager;
    ZonkTokenDeployerV3 public immutable tokenDeployer;
    ZonkCurveDeployerV3 public immutable curveDeployer;

    mapping(address token => TokenInfo) public tokenInfo;
    mapping(address token => bool) public isToken;
    mapping(address token => address curve) public curveOf;
    mapping(bytes32 definition => address token) public definitionToken;
    mapping(address creator => address[] tokens) private _tokensByCreator;

    constructor(address feeManager_, address graduationManager_) {
        feeManager = IZonkFeeManagerV3(feeManager_);
        graduationManager = IZonkGraduationManagerV3(graduationManager_);
        tokenDeployer = new ZonkTokenDeployerV3(graduationManager_);
        curveDeployer = new ZonkCurveDeployerV3(feeManager_, graduationManager_);
    }

    /// @notice Launches a token. Reverts `InvalidTokenName` (empty or > 64 bytes),
    /// `InvalidTokenSymbol` (empty or > 16 bytes), `InvalidUserSalt` (zero) or `DuplicateToken`
    /// (same sender, name and symbol as an earlier launch).
    function createToken(string calldata name, string calldata symbol, bytes32 userSalt)
        external
        returns (address token, address curve)
    {
        if (bytes(name).length == 0 || bytes(name).length > C.MAX_NAME_BYTES) revert InvalidTokenName();
        if (bytes(symbol).length == 0 || bytes(symbol).length > C.MAX_SYMBOL_BYTES) revert InvalidTokenSymbol();
        if (userSalt == bytes32(0)) revert InvalidUserSalt();
        bytes32 definition = keccak256(abi.encode(msg.sender, name, symbol));
        if (definitionToken[definition] != address(0)) revert DuplicateToken();

        bytes32 launchSeed;
        bytes32 candidateSalt;
        uint16 attemptIndex;
        (token, launchSeed, candidateSalt, attemptIndex) = tokenDeployer.deployToken(msg.sender, userSalt, name, symbol);
        curve = curveDeployer.deployCurve(token, msg.sender);
        IZonkTokenV3(token).initialize(curve);
        if (IERC20(token).balanceOf(curve) != C.TOTAL_SUPPLY) revert InventoryMismatch();

        definitionToken[definition] = token;
        tokenInfo[token] = TokenInfo({creator: msg.sender, curve: curve});
        isToken[token] = true;
        curveOf[token] = curve;
        _tokensByCreator[msg.sender].push(token);
        feeManager.registerToken(token, curve, msg.sender);
        address pool = graduationManager.registerLaunch(token, curve, msg.sender, launchSeed, candidateSalt, attemptIndex);

        emit TokenLaunchedV3(
            msg.sender,
            token,
            curve,
            C.PROTOCOL_VERSION,
            C.TOTAL_SUPPLY,
            C.CURVE_ALLOCATION,
            C.LP_ALLOCATION,
            msg.sender,
            pool,
            launchSeed,
            candidateSalt,
            attemptIndex
        );
    }

    /// @notice Every token `creator` launched, in launch order.
    function tokensByCreator(address creator) external view returns (address[] memory) {
        return _tokensByCreator[creator];
    }

    /// @notice keccak256("endpoint-cp-v3").
    function protocolVersionHash() external pure returns (bytes32) {
        return C.PROTOCOL_VERSION_HASH;
    }
}
