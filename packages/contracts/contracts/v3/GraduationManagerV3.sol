// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {FactoryBoundV3} from "./FactoryBoundV3.sol";
import {
    INonfungiblePositionManagerLike,
    IUniswapV3FactoryLike,
    IUniswapV3PoolLike,
    IWETH9Like,
    IZonkGraduationManagerV3
} from "./IZonkV3.sol";
import {LPCustodianV3} from "./LPCustodianV3.sol";
import {ResidualEscrowV3} from "./ResidualEscrowV3.sol";
import {PermanentLPFeeVaultV3} from "./PermanentLPFeeVaultV3.sol";
import {ZonkV3Constants as C} from "./ZonkV3Constants.sol";

/// @title GraduationManagerV3
/// @notice Owns the canonical token/WETH Uniswap V3 pool (1 % tier) of every launch. At launch the
/// factory registers the token: the pool is created (or taken over while still uninitialized) and
/// initialized at the curve's terminal price, so nobody else can choose its price. At graduation the
/// token's curve sends the LP allocation and the 3 ETH: the ETH is wrapped, a full-range position
/// (ticks ±887200) is minted to a fresh ownerless custodian, the mint's rounding residue goes to a
/// fresh per-token escrow, and `GraduatedV3` is emitted.
contract GraduationManagerV3 is IZonkGraduationManagerV3, ReentrancyGuard, FactoryBoundV3 {
    using SafeERC20 for IERC20;

    /// @notice State of the canonical pool slot of a (future) token, as candidate selection sees it.
    enum PoolCandidateState {
        NoPool,
        Uninitialized,
        InitializedExactPrice,
        IncorrectPrice,
        NonzeroLiquidity,
        Malformed
    }

    /// @dev The canonical pool is `canonicalPoolOf[token]`.
    struct Launch {
        address curve;
        address creator;
        bytes32 launchSeed;
        bytes32 candidateSalt;
        uint16 attemptIndex;
        bool registered;
        bool graduated;
    }

    event LaunchRegistered(
        address indexed token,
        address indexed curve,
        address indexed creator,
        address pool,
        bytes32 launchSeed,
        bytes32 candidateSalt,
        uint16 attemptIndex
    );
    event GraduatedV3(address indexed token, address indexed custodian, uint256 indexed tokenId, uint128 liquidity);

    error UnauthorizedCurve();
    error InvalidPoolConfiguration();
    error InvalidToken();
    error LaunchAlreadyRegistered();
    error LaunchNotRegistered();
    error LaunchRelationshipMismatch();
    error AlreadyGraduated();
    error UnsafePoolCandidate(PoolCandidateState state, address pool);
    error PoolReservationMismatch();
    error SettlementMismatch();

    uint24 public constant POOL_FEE = C.POOL_FEE;
    int24 public constant POOL_TICK_SPACING = C.POOL_TICK_SPACING;

    address public immutable override uniswapV3Factory;
    address public immutable override weth;
    address public immutable nonfungiblePositionManager;
    /// @notice The permanent LP fee vault (created here) the custodians collect the positions' fees into.
    PermanentLPFeeVaultV3 public immutable lpFeeVault;

    mapping(address token => Launch) internal _launches;
    mapping(address token => address pool) public canonicalPoolOf;
    mapping(address token => address custodian) public custodianOf;
    mapping(address token => address escrow) public residualEscrowOf;

    constructor(address uniswapV3Factory_, address weth_, address positionManager_, address feeManager_) {
        if (IUniswapV3FactoryLike(uniswapV3Factory_).feeAmountTickSpacing(C.POOL_FEE) != C.POOL_TICK_SPACING) {
            revert InvalidPoolConfiguration();
        }
        uniswapV3Factory = uniswapV3Factory_;
        weth = weth_;
        nonfungiblePositionManager = positionManager_;
        lpFeeVault = new PermanentLPFeeVaultV3(feeManager_);
    }

    /// @notice Creates (or takes over, while uninitialized) and initializes the canonical pool of a
    /// new launch at the terminal price. Factory only.
    function registerLaunch(
        address token,
        address curve,
        address creator,
        bytes32 launchSeed,
        bytes32 candidateSalt,
        uint16 attemptIndex
    ) external override onlyFactory returns (address pool) {
        if (_launches[token].registered) revert LaunchAlreadyRegistered();
        (PoolCandidateState state, address existing) = classifyPoolCandidate(token);
        if (state == PoolCandidateState.NoPool) {
            pool = IUniswapV3FactoryLike(uniswapV3Factory).createPool(token, weth, C.POOL_FEE);
        } else if (state == PoolCandidateState.Uninitialized) {
            pool = existing;
        } else {
            revert UnsafePoolCandidate(state, existing);
        }
        IUniswapV3PoolLike(pool).initialize(expectedSqrtPriceX96(token));
        (PoolCandidateState finalState,) = classifyPoolCandidate(token);
        if (finalState != PoolCandidateState.InitializedExactPrice) revert PoolReservationMismatch();
        _launches[token] = Launch({
            curve: curve,
            creator: creator,
            launchSeed: launchSeed,
            candidateSalt: candidateSalt,
            attemptIndex: attemptIndex,
            registered: true,
            graduated: false
        });
        canonicalPoolOf[token] = pool;
        emit LaunchRegistered(token, curve, creator, pool, launchSeed, candidateSalt, attemptIndex);
    }

    /// @notice Settles a graduation: called by the token's curve with the LP allocation (already
    /// transferred) and the 3 ETH (as value).
    function graduate(address token, address creator, uint256 tokenAmount, uint256 ethAmount)
        external
        payable
        override
        nonReentrant
    {
        Launch storage launch = _launches[token];
        if (!launch.registered) revert LaunchNotRegistered();
        if (msg.sender != launch.curve) revert UnauthorizedCurve();
        if (creator != launch.creator) revert LaunchRelationshipMismatch();
        if (launch.graduated) revert AlreadyGraduated();
        launch.graduated = true;
        if (
            msg.value != ethAmount || tokenAmount != C.LP_ALLOCATION || ethAmount != C.GRADUATION_RESERVE
                || IERC20(token).balanceOf(address(this)) < tokenAmount
        ) revert SettlementMismatch();
        (uint160 sqrtPriceX96,,,,,,) = IUniswapV3PoolLike(canonicalPoolOf[token]).slot0();
        if (sqrtPriceX96 != expectedSqrtPriceX96(token)) revert SettlementMismatch();

        LPCustodianV3 custodian = new LPCustodianV3(token, nonfungiblePositionManager, address(lpFeeVault), weth);
        lpFeeVault.registerCustodian(address(custodian), token);
        ResidualEscrowV3 escrow = new ResidualEscrowV3(token, weth);
        custodianOf[token] = address(custodian);
        residualEscrowOf[token] = address(escrow);

        (uint256 tokenId, uint128 liquidity, uint256 tokenUsed, uint256 wethUsed) =
            _mintFullRange(token, address(custodian), tokenAmount, ethAmount);
        if (tokenUsed < tokenAmount) _depositResidual(escrow, token, tokenAmount - tokenUsed);
        if (wethUsed < ethAmount) _depositResidual(escrow, weth, ethAmount - wethUsed);
        custodian.bindPosition(tokenId);
        emit GraduatedV3(token, address(custodian), tokenId, liquidity);
    }

    /// @notice The pool's initial sqrtPriceX96 for `token`: the curve's terminal price, order aware.
    function expectedSqrtPriceX96(address token) public view returns (uint160) {
        if (token == address(0) || token == weth) revert InvalidToken();
        return token < weth ? C.SQRT_PRICE_X96_TOKEN_IS_TOKEN0 : C.SQRT_PRICE_X96_WETH_IS_TOKEN0;
    }

    /// @notice Whether `token`'s canonical pool address can still be reserved (`NoPool` or
    /// `Uninitialized`) and, if a pool exists, its address.
    function classifyPoolCandidate(address token) public view returns (PoolCandidateState state, address pool) {
        if (token == address(0) || token == weth) return (PoolCandidateState.Malformed, address(0));
        pool = IUniswapV3FactoryLike(uniswapV3Factory).getPool(token, weth, C.POOL_FEE);
        if (pool == address(0)) return (PoolCandidateState.NoPool, pool);
        if (pool.code.length == 0) return (PoolCandidateState.Malformed, pool);
        if (IUniswapV3PoolLike(pool).liquidity() != 0) return (PoolCandidateState.NonzeroLiquidity, pool);
        (uint160 sqrtPriceX96,,,,,,) = IUniswapV3PoolLike(pool).slot0();
        if (sqrtPriceX96 == 0) return (PoolCandidateState.Uninitialized, pool);
        if (sqrtPriceX96 == expectedSqrtPriceX96(token)) return (PoolCandidateState.InitializedExactPrice, pool);
        return (PoolCandidateState.IncorrectPrice, pool);
    }

    /// @notice The registration of `token`.
    function launchOf(address token)
        external
        view
        returns (address curve, address creator, bool registered, bool graduated)
    {
        Launch storage launch = _launches[token];
        return (launch.curve, launch.creator, launch.registered, launch.graduated);
    }

    /// @notice The CREATE2 selection of `token`'s launch and its canonical pool.
    function launchSelectionOf(address token)
        external
        view
        returns (address pool, bytes32 launchSeed, bytes32 candidateSalt, uint16 attemptIndex)
    {
        Launch storage launch = _launches[token];
        return (canonicalPoolOf[token], launch.launchSeed, launch.candidateSalt, launch.attemptIndex);
    }

    /// @notice keccak256("endpoint-cp-v3").
    function protocolVersionHash() external pure returns (bytes32) {
        return C.PROTOCOL_VERSION_HASH;
    }

    function _mintFullRange(address token, address custodian, uint256 tokenAmount, uint256 ethAmount)
        private
        returns (uint256 tokenId, uint128 liquidity, uint256 tokenUsed, uint256 wethUsed)
    {
        bool tokenIsToken0 = token < weth;
        IWETH9Like(weth).deposit{value: ethAmount}();
        IERC20(token).forceApprove(nonfungiblePositionManager, tokenAmount);
        IERC20(weth).forceApprove(nonfungiblePositionManager, ethAmount);
        INonfungiblePositionManagerLike.MintParams memory params = INonfungiblePositionManagerLike.MintParams({
            token0: tokenIsToken0 ? token : weth,
            token1: tokenIsToken0 ? weth : token,
            fee: C.POOL_FEE,
            tickLower: C.FULL_RANGE_TICK_LOWER,
            tickUpper: C.FULL_RANGE_TICK_UPPER,
            amount0Desired: tokenIsToken0 ? tokenAmount : ethAmount,
            amount1Desired: tokenIsToken0 ? ethAmount : tokenAmount,
            amount0Min: 0,
            amount1Min: 0,
            recipient: custodian,
            deadline: block.timestamp
        });
        uint256 used0;
        uint256 used1;
        (tokenId, liquidity, used0, used1) = INonfungiblePositionManagerLike(nonfungiblePositionManager).mint(params);
        if (liquidity == 0) revert SettlementMismatch();
        IERC20(token).forceApprove(nonfungiblePositionManager, 0);
        IERC20(weth).forceApprove(nonfungiblePositionManager, 0);
        (tokenUsed, wethUsed) = tokenIsToken0 ? (used0, used1) : (used1, used0);
    }

    function _depositResidual(ResidualEscrowV3 escrow, address asset, uint256 amount) private {
        IERC20(asset).safeTransfer(address(escrow), amount);
        escrow.deposit(asset, amount);
    }
}
