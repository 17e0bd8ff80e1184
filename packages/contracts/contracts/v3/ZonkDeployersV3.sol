// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {GraduationManagerV3} from "./GraduationManagerV3.sol";
import {ZonkCurveV3} from "./ZonkCurveV3.sol";
import {ZonkTokenV3} from "./ZonkTokenV3.sol";
import {ZonkV3Constants as C} from "./ZonkV3Constants.sol";

/// @title ZonkTokenDeployerV3
/// @notice Deploys launch tokens with CREATE2 for the factory. The salt is the first of up to 256
/// candidates `keccak256(abi.encode(launchSeed, i))` whose token address has no code and whose
/// canonical token/WETH pool does not exist yet or is still uninitialized, so the launch can always
/// reserve that pool at the terminal price.
contract ZonkTokenDeployerV3 {
    error UnauthorizedFactory();
    error NoAcceptableTokenAddress(bytes32 launchSeed);
    error TokenAddressCollision(address expected);

    address public immutable factory;
    GraduationManagerV3 public immutable graduationManager;

    constructor(address graduationManager_) {
        factory = msg.sender;
        graduationManager = GraduationManagerV3(graduationManager_);
    }

    /// @notice Deploys the token of (`creator`, `name`, `symbol`) at the first acceptable candidate.
    function deployToken(address creator, bytes32 userSalt, string calldata name, string calldata symbol)
        external
        returns (address token, bytes32 launchSeed, bytes32 candidateSalt, uint16 attemptIndex)
    {
        if (msg.sender != factory) revert UnauthorizedFactory();
        launchSeed = computeLaunchSeed(creator, userSalt, name, symbol);
        bytes32 initCodeHash = _initCodeHash(creator, name, symbol);
        address expected;
        (expected, candidateSalt, attemptIndex) = _select(launchSeed, initCodeHash);
        token = address(new ZonkTokenV3{salt: candidateSalt}(factory, creator, name, symbol));
        if (token != expected) revert TokenAddressCollision(expected);
    }

    /// @notice keccak256(abi.encode(keccak256("endpoint-cp-v3"), chainid, factory, creator, userSalt,
    /// keccak256(name), keccak256(symbol))).
    function computeLaunchSeed(address creator, bytes32 userSalt, string calldata name, string calldata symbol)
        public
        view
        returns (bytes32)
    {
        return keccak256(
            abi.encode(
                C.PROTOCOL_VERSION_HASH,
                block.chainid,
                factory,
                creator,
                userSalt,
                keccak256(bytes(name)),
                keccak256(bytes(symbol))
            )
        );
    }

    /// @notice keccak256(abi.encode(launchSeed, attemptIndex)).
    function computeCandidateSalt(bytes32 launchSeed, uint16 attemptIndex) public pure returns (bytes32) {
        return keccak256(abi.encode(launchSeed, attemptIndex));
    }

    /// @notice The CREATE2 address of the token (`creator`, `name`, `symbol`) under `candidateSalt`.
    function computeTokenAddress(address creator, string calldata name, string calldata symbol, bytes32 candidateSalt)
        external
        view
        returns (address)
    {
        return _create2Address(_initCodeHash(creator, name, symbol), candidateSalt);
    }

    function _select(bytes32 launchSeed, bytes32 initCodeHash)
        private
        view
        returns (address candidate, bytes32 salt, uint16 index)
    {
        for (uint16 i; i < C.MAX_SALT_CANDIDATES; ++i) {
            salt = computeCandidateSalt(launchSeed, i);
            candidate = _create2Address(initCodeHash, salt);
            if (candidate.code.length != 0) continue;
            (GraduationManagerV3.PoolCandidateState state,) = graduationManager.classifyPoolCandidate(candidate);
            if (
                state == GraduationManagerV3.PoolCandidateState.NoPool
                    || state == GraduationManagerV3.PoolCandidateState.Uninitialized
            ) return (candidate, salt, i);
        }
        revert NoAcceptableTokenAddress(launchSeed);
    }

    function _initCodeHash(address creator, string calldata name, string calldata symbol)
        private
        view
        returns (bytes32)
    {
        return keccak256(abi.encodePacked(type(ZonkTokenV3).creationCode, abi.encode(factory, creator, name, symbol)));
    }

    function _create2Address(bytes32 initCodeHash, bytes32 salt) private view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCodeHash)))));
    }
}

/// @title ZonkCurveDeployerV3
/// @notice Deploys the per-token curves for the factory (keeps the factory under the code size limit).
contract ZonkCurveDeployerV3 {
    error UnauthorizedFactory();

    address public immutable factory;
    address public immutable feeManager;
    address public immutable graduationManager;

    constructor(address feeManager_, address graduationManager_) {
        factory = msg.sender;
        feeManager = feeManager_;
        graduationManager = graduationManager_;
    }

    /// @notice Deploys the curve of `token`.
    function deployCurve(address token, address creator) external returns (address) {
        if (msg.sender != factory) revert UnauthorizedFactory();
        return address(new ZonkCurveV3(factory, token, creator, feeManager, graduationManager));
    }
}
