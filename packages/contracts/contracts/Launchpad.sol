// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {LaunchpadToken} from "./LaunchpadToken.sol";

interface IWETH9 {
    function deposit() external payable;
    function approve(address spender, uint256 value) external returns (bool);
    function transfer(address to, uint256 value) external returns (bool);
}

interface IUniswapV3FactoryMinimal {
    function getPool(address tokenA, address tokenB, uint24 fee) external view returns (address pool);
}

interface INonfungiblePositionManagerMinimal {
    struct MintParams {
        address token0;
        address token1;
        uint24 fee;
        int24 tickLower;
        int24 tickUpper;
        uint256 amount0Desired;
        uint256 amount1Desired;
        uint256 amount0Min;
        uint256 amount1Min;
        address recipient;
        uint256 deadline;
    }

    function factory() external view returns (address);

    function createAndInitializePoolIfNecessary(address token0, address token1, uint24 fee, uint160 sqrtPriceX96)
        external
        payable
        returns (address pool);

    function mint(MintParams calldata params)
        external
        payable
        returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);
}

/// @title Launchpad (reference implementation, DESIGN.md §2)
/// @notice Creates fixed-supply ERC-20 tokens and trades them against ETH on a constant-product
/// bonding curve over virtual reserves. Fees are taken on the ETH side. When the real ETH reserve
/// of a token reaches `graduationThreshold`, the token graduates: a Uniswap V3 WETH/token pool
/// (1% fee tier) is created at the curve's last price and the remaining tokens plus the reserve
/// become full-range liquidity, owned (locked) by this contract. Curve trades on a graduated
/// token revert.
///
/// Curve: each token starts at virtual reserves (`initialVirtualReserve`, `initialVirtualTokenBalance`).
///   buy : tokenAmount = tokenBalance * curveValue / (reserveBalance + curveValue)
///   sell: curveValue  = reserveBalance * tokenAmount / (tokenBalance + tokenAmount)
/// (integer division rounds down, in favour of the curve). The real reserve is
/// `reserveBalance - initialVirtualReserve`. `initialVirtualTokenBalance` is chosen so that, at
/// graduation, the tokens left in the launchpad match the reserve at the curve's last price:
///   T0 = INITIAL_SUPPLY * V^2 / (V^2 - V0^2), V = V0 + graduationThreshold.
///
/// Fees (basis points, fixed at deployment) are a share of the gross ETH flow:
///   buy : reserveAmount = msg.value used; fee_i = reserveAmount * bps_i / 10000; curveValue = reserveAmount - fees
///   sell: fee_i = curveValue * bps_i / 10000; reserveAmount = curveValue - fees (paid to the seller)
///
/// The buy that crosses the threshold is capped: it uses only the ETH needed to bring the real
/// reserve to the threshold (the smallest reserveAmount whose curveValue reaches it) and refunds the
/// rest of `msg.value` to the buyer in the same transaction, which then graduates the token.
contract Launchpad is ReentrancyGuard {
    /// @notice Fixed supply of every token of this contract version (10^9 whole tokens, 18 decimals).
    uint256 public constant INITIAL_SUPPLY = 1_000_000_000e18;
    uint256 public constant BPS = 10_000;
    /// @notice Uniswap V3 fee tier of graduation pools (1%).
    uint24 public constant POOL_FEE = 10_000;
    /// @notice Full-range ticks for the 1% tier (tick spacing 200).
    int24 public constant MIN_TICK = -887_200;
    int24 public constant MAX_TICK = 887_200;

    event TokenCreated(
        address indexed token,
        address indexed creator,
        string name,
        string symbol,
        uint256 initialSupply,
        uint256 reserveBalance,
        uint256 tokenBalance,
        uint256 graduationThreshold
    );
    event TokensBought(
        address indexed token,
        address indexed buyer,
        uint256 reserveAmount,
        uint256 tokenAmount,
        uint256 curveValue,
        uint256 protocolFee,
        uint256 creatorFee,
        uint256 reserveBalance,
        uint256 tokenBalance
    );
    event TokensSold(
        address indexed token,
        address indexed seller,
        uint256 reserveAmount,
        uint256 tokenAmount,
        uint256 curveValue,
        uint256 protocolFee,
        uint256 creatorFee,
        uint256 reserveBalance,
        uint256 tokenBalance
    );
    event TokenGraduated(address indexed token, address indexed pool, uint256 reserveAmount, uint256 tokenAmount);

    error UnknownToken(address token);
    error AlreadyGraduated(address token);
    error ZeroAmount();
    error SlippageExceeded(uint256 amount, uint256 minimum);
    error InvalidConfig();
    error EthTransferFailed(address to, uint256 amount);

    /// @notice Curve state of one token.
    struct Curve {
        address creator;
        uint256 reserveBalance; // virtual ETH reserve (wei)
        uint256 tokenBalance; // virtual token reserve (base units)
        bool graduated;
        address pool;
    }

    IWETH9 public immutable weth;
    INonfungiblePositionManagerMinimal public immutable positionManager;
    IUniswapV3FactoryMinimal public immutable uniswapV3Factory;
    address public immutable protocolFeeRecipient;
    uint256 public immutable protocolFeeBps;
    uint256 public immutable creatorFeeBps;
    /// @notice Real ETH reserve (wei) at which a token graduates.
    uint256 public immutable graduationThreshold;
    /// @notice Virtual ETH reserve of a new token (wei).
    uint256 public immutable initialVirtualReserve;
    /// @notice Virtual token reserve of a new token (base units).
    uint256 public immutable initialVirtualTokenBalance;

    mapping(address token => Curve) internal _curves;
    /// @notice Fees that could not be pushed to their recipient (reverting receiver); claim with {claimFees}.
    mapping(address account => uint256) public pendingFees;
    address[] internal _tokens;

    constructor(
        address weth_,
        address positionManager_,
        address protocolFeeRecipient_,
        uint256 protocolFeeBps_,
        uint256 creatorFeeBps_,
        uint256 graduationThreshold_,
        uint256 initialVirtualReserve_
    ) {
        if (
            weth_ == address(0) || positionManager_ == address(0) || protocolFeeRecipient_ == address(0)
                || protocolFeeBps_ + creatorFeeBps_ >= BPS / 2 || graduationThreshold_ == 0
                || initialVirtualReserve_ == 0 || graduationThreshold_ > 1e30 || initialVirtualReserve_ > 1e30
        ) revert InvalidConfig();
        weth = IWETH9(weth_);
        positionManager = INonfungiblePositionManagerMinimal(positionManager_);
        uniswapV3Factory = IUniswapV3FactoryMinimal(INonfungiblePositionManagerMinimal(positionManager_).factory());
        protocolFeeRecipient = protocolFeeRecipient_;
        protocolFeeBps = protocolFeeBps_;
        creatorFeeBps = creatorFeeBps_;
        graduationThreshold = graduationThreshold_;
        initialVirtualReserve = initialVirtualReserve_;
        uint256 v = initialVirtualReserve_ + graduationThreshold_;
        initialVirtualTokenBalance = Math.mulDiv(INITIAL_SUPPLY, v * v, v * v - initialVirtualReserve_ * initialVirtualReserve_);
    }

    // ---------------------------------------------------------------- trading

    /// @notice Creates a token (whole supply minted to this contract) with a fresh curve.
    /// `msg.value > 0` is the creator's first buy (no slippage limit: nobody can trade before it).
    function createToken(string calldata name, string calldata symbol)
        external
        payable
        nonReentrant
        returns (address token)
    {
        token = address(new LaunchpadToken(name, symbol, INITIAL_SUPPLY));
        _curves[token] = Curve({
            creator: msg.sender,
            reserveBalance: initialVirtualReserve,
            tokenBalance: initialVirtualTokenBalance,
            graduated: false,
            pool: address(0)
        });
        _tokens.push(token);
        emit TokenCreated(
            token,
            msg.sender,
            name,
            symbol,
            INITIAL_SUPPLY,
            initialVirtualReserve,
            initialVirtualTokenBalance,
            graduationThreshold
        );
        if (msg.value > 0) _buy(token, 0);
    }

    /// @notice Buys tokens with `msg.value` (gross, fees included). Reverts when fewer than
    /// `minTokenAmount` tokens would be received. A buy crossing the graduation threshold is capped
    /// and the excess ETH refunded; the token then graduates in this transaction.
    function buy(address token, uint256 minTokenAmount) external payable nonReentrant returns (uint256 tokenAmount) {
        return _buy(token, minTokenAmount);
    }

    /// @notice Sells `tokenAmount` tokens of the caller to the curve (no approval needed) for at least
    /// `minReserveAmount` wei, net of fees.
    function sell(address token, uint256 tokenAmount, uint256 minReserveAmount)
        external
        nonReentrant
        returns (uint256 reserveAmount)
    {
        Curve storage c = _tradable(token);
        if (tokenAmount == 0) revert ZeroAmount();
        uint256 curveValue = (c.reserveBalance * tokenAmount) / (c.tokenBalance + tokenAmount);
        (uint256 protocolFee, uint256 creatorFee) = _fees(curveValue);
        reserveAmount = curveValue - protocolFee - creatorFee;
        if (reserveAmount == 0) revert ZeroAmount();
        if (reserveAmount < minReserveAmount) revert SlippageExceeded(reserveAmount, minReserveAmount);
        c.reserveBalance -= curveValue;
        c.tokenBalance += tokenAmount;
        IERC20(token).transferFrom(msg.sender, address(this), tokenAmount);
        emit TokensSold(
            token, msg.sender, reserveAmount, tokenAmount, curveValue, protocolFee, creatorFee, c.reserveBalance, c.tokenBalance
        );
        _payFee(protocolFeeRecipient, protocolFee);
        _payFee(c.creator, creatorFee);
        _sendEth(msg.sender, reserveAmount);
    }

    /// @notice Tokens received for `reserveIn` wei paid (gross), after the cap at the graduation threshold.
    function quoteBuy(address token, uint256 reserveIn) external view returns (uint256 tokenAmount) {
        Curve storage c = _tradable(token);
        (,, uint256 curveValue) = _buyAmounts(c, reserveIn);
        return (c.tokenBalance * curveValue) / (c.reserveBalance + curveValue);
    }

    /// @notice Wei received (net of fees) for selling `tokenIn` tokens.
    function quoteSell(address token, uint256 tokenIn) external view returns (uint256 reserveAmount) {
        Curve storage c = _tradable(token);
        uint256 curveValue = (c.reserveBalance * tokenIn) / (c.tokenBalance + tokenIn);
        (uint256 protocolFee, uint256 creatorFee) = _fees(curveValue);
        return curveValue - protocolFee - creatorFee;
    }

    /// @notice Claims fees that could not be pushed to the caller earlier.
    function claimFees() external nonReentrant {
        uint256 amount = pendingFees[msg.sender];
        pendingFees[msg.sender] = 0;
        _sendEth(msg.sender, amount);
    }

    // ---------------------------------------------------------------- views

    /// @notice Curve state of `token`: creator, virtual reserves, real reserve, graduation and pool.
    function curveOf(address token)
        external
        view
        returns (
            address creator,
            uint256 reserveBalance,
            uint256 tokenBalance,
            uint256 realReserve,
            bool graduated,
            address pool
        )
    {
        Curve storage c = _curves[token];
        if (c.creator == address(0)) revert UnknownToken(token);
        return (
            c.creator, c.reserveBalance, c.tokenBalance, c.reserveBalance - initialVirtualReserve, c.graduated, c.pool
        );
    }

    /// @notice Number of tokens created.
    function tokenCount() external view returns (uint256) {
        return _tokens.length;
    }

    /// @notice The `index`-th token created (0-based).
    function tokenAt(uint256 index) external view returns (address) {
        return _tokens[index];
    }

    // ---------------------------------------------------------------- internals

    function _tradable(address token) internal view returns (Curve storage c) {
        c = _curves[token];
        if (c.creator == address(0)) revert UnknownToken(token);
        if (c.graduated) revert AlreadyGraduated(token);
    }

    function _fees(uint256 amount) internal view returns (uint256 protocolFee, uint256 creatorFee) {
        protocolFee = (amount * protocolFeeBps) / BPS;
        creatorFee = (amount * creatorFeeBps) / BPS;
    }

    /// @dev Gross amount used (<= offered), its fees and curve value, capped at the graduation threshold.
    function _buyAmounts(Curve storage c, uint256 offered)
        internal
        view
        returns (uint256 reserveAmount, uint256 feesTotal, uint256 curveValue)
    {
        reserveAmount = offered;
        (uint256 pf, uint256 cf) = _fees(reserveAmount);
        curveValue = reserveAmount - pf - cf;
        uint256 remaining = initialVirtualReserve + graduationThreshold - c.reserveBalance;
        if (curveValue > remaining) {
            reserveAmount = Math.ceilDiv(remaining * BPS, BPS - protocolFeeBps - creatorFeeBps);
            if (reserveAmount > offered) reserveAmount = offered;
            (pf, cf) = _fees(reserveAmount);
            curveValue = reserveAmount - pf - cf;
        }
        feesTotal = pf + cf;
    }

    function _buy(address token, uint256 minTokenAmount) internal returns (uint256 tokenAmount) {
        Curve storage c = _tradable(token);
        if (msg.value == 0) revert ZeroAmount();
        (uint256 reserveAmount,, uint256 curveValue) = _buyAmounts(c, msg.value);
        (uint256 protocolFee, uint256 creatorFee) = _fees(reserveAmount);
        tokenAmount = (c.tokenBalance * curveValue) / (c.reserveBalance + curveValue);
        if (tokenAmount == 0) revert ZeroAmount();
        if (tokenAmount < minTokenAmount) revert SlippageExceeded(tokenAmount, minTokenAmount);
        c.reserveBalance += curveValue;
        c.tokenBalance -= tokenAmount;
        IERC20(token).transfer(msg.sender, tokenAmount);
        emit TokensBought(
            token, msg.sender, reserveAmount, tokenAmount, curveValue, protocolFee, creatorFee, c.reserveBalance, c.tokenBalance
        );
        _payFee(protocolFeeRecipient, protocolFee);
        _payFee(c.creator, creatorFee);
        if (msg.value > reserveAmount) _sendEth(msg.sender, msg.value - reserveAmount);
        if (c.reserveBalance - initialVirtualReserve >= graduationThreshold) _graduate(token, c);
    }

    function _graduate(address token, Curve storage c) internal {
        c.graduated = true;
        uint256 reserve = c.reserveBalance - initialVirtualReserve;
        uint256 tokens = IERC20(token).balanceOf(address(this));
        address pool = _createPool(token, c.reserveBalance, c.tokenBalance);
        c.pool = pool;
        weth.deposit{value: reserve}();
        (uint256 reserveAdded, uint256 tokensAdded) = _addLiquidity(token, reserve, tokens);
        // Dust WETH the position could not take goes to the protocol fee recipient; dust tokens stay here.
        if (reserve > reserveAdded) weth.transfer(protocolFeeRecipient, reserve - reserveAdded);
        emit TokenGraduated(token, pool, reserveAdded, tokensAdded);
    }

    /// @dev Creates (or reuses) the WETH/token 1% pool, initialized at the curve's spot price
    /// reserveBalance / tokenBalance (wei per token base unit).
    function _createPool(address token, uint256 reserveBalance, uint256 tokenBalance) internal returns (address) {
        bool tokenIsToken0 = token < address(weth);
        uint256 priceX192 = tokenIsToken0
            ? Math.mulDiv(reserveBalance, 1 << 192, tokenBalance) // WETH (token1) per token (token0)
            : Math.mulDiv(tokenBalance, 1 << 192, reserveBalance); // token (token1) per WETH (token0)
        (address token0, address token1) = tokenIsToken0 ? (token, address(weth)) : (address(weth), token);
        return positionManager.createAndInitializePoolIfNecessary(token0, token1, POOL_FEE, uint160(Math.sqrt(priceX192)));
    }

    /// @dev Adds `reserve` WETH and `tokens` as full-range liquidity owned by this contract.
    function _addLiquidity(address token, uint256 reserve, uint256 tokens)
        internal
        returns (uint256 reserveAdded, uint256 tokensAdded)
    {
        weth.approve(address(positionManager), reserve);
        IERC20(token).approve(address(positionManager), tokens);
        bool tokenIsToken0 = token < address(weth);
        INonfungiblePositionManagerMinimal.MintParams memory params = INonfungiblePositionManagerMinimal.MintParams({
            token0: tokenIsToken0 ? token : address(weth),
            token1: tokenIsToken0 ? address(weth) : token,
            fee: POOL_FEE,
            tickLower: MIN_TICK,
            tickUpper: MAX_TICK,
            amount0Desired: tokenIsToken0 ? tokens : reserve,
            amount1Desired: tokenIsToken0 ? reserve : tokens,
            amount0Min: 0,
            amount1Min: 0,
            recipient: address(this),
            deadline: block.timestamp
        });
        (,, uint256 amount0, uint256 amount1) = positionManager.mint(params);
        (reserveAdded, tokensAdded) = tokenIsToken0 ? (amount1, amount0) : (amount0, amount1);
    }

    function _payFee(address to, uint256 amount) internal {
        if (amount == 0) return;
        (bool ok,) = to.call{value: amount}("");
        if (!ok) pendingFees[to] += amount;
    }

    function _sendEth(address to, uint256 amount) internal {
        if (amount == 0) return;
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert EthTransferFailed(to, amount);
    }
}
