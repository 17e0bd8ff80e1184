// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {IZonkFeeManagerV3, IZonkGraduationManagerV3} from "./IZonkV3.sol";
import {ZonkV3Constants as C} from "./ZonkV3Constants.sol";
import {ZonkV3LaunchGettersV3} from "./ZonkV3LaunchGettersV3.sol";

/// @title ZonkCurveV3
/// @notice The bonding curve of one launch token: a constant product K = VTR × VER over the virtual
/// reserves (VTR − soldSupply) tokens and (VER + reserveCoordinate) wei. Buys pay a 1 % fee on the
/// accepted gross; sells pay it on the gross curve output. Token outputs and ETH outputs round down
/// (the post-trade virtual coordinate is ceil(K / x)). The buy that brings the net reserve to
/// 3 ETH is capped at exactly that amount (the excess is refunded), takes all remaining curve
/// inventory and graduates the token in the same transaction: the LP allocation and the 3 ETH go to
/// the graduation manager and trading on the curve closes for good.
contract ZonkCurveV3 is ReentrancyGuard, ZonkV3LaunchGettersV3 {
    using SafeERC20 for IERC20;

    struct FeeSplit {
        uint256 totalFee;
        uint256 creatorFee;
        uint256 protocolFee;
        uint256 communityFee;
        uint256 traderRewardsFee;
    }

    struct BuyQuote {
        uint256 submittedGross;
        uint256 acceptedGross;
        uint256 totalFee;
        uint256 creatorFee;
        uint256 protocolFee;
        uint256 communityFee;
        uint256 traderRewardsFee;
        uint256 netCurveInput;
        uint256 refund;
        uint256 tokensOut;
        bool reachesGraduation;
    }

    struct SellQuote {
        uint256 tokensIn;
        uint256 grossCurveOutput;
        uint256 totalFee;
        uint256 creatorFee;
        uint256 protocolFee;
        uint256 communityFee;
        uint256 traderRewardsFee;
        uint256 netSellerOutput;
    }

    event TokensBought(
        address indexed token,
        address indexed buyer,
        uint256 submittedGross,
        uint256 acceptedGross,
        uint256 netCurveInput,
        uint256 tokensOut,
        uint256 totalFee,
        uint256 creatorFee,
        uint256 protocolFee,
        uint256 communityFee,
        uint256 traderRewardsFee,
        uint256 refund
    );
    event TokensSold(
        address indexed token,
        address indexed seller,
        uint256 tokensIn,
        uint256 grossCurveOutput,
        uint256 netSellerOutput,
        uint256 totalFee,
        uint256 creatorFee,
        uint256 protocolFee,
        uint256 communityFee,
        uint256 traderRewardsFee
    );
    event Graduated(
        address indexed token,
        address indexed graduationManager,
        uint256 tokenAmount,
        uint256 ethAmount,
        uint256 soldSupply
    );
    event GraduationReserveForwarded(uint256 terminalReserveCoordinate, uint256 ethForwarded);

    error DeadlineExpired();
    error DustTrade();
    error GraduationAccountingMismatch();
    error InsufficientCurveInventory();
    error InsufficientReserve();
    error InvalidAmount();
    error NativeTransferFailed();
    error SlippageExceeded();
    error TradingClosed();
    error UnexpectedEther();

    uint256 public constant VIRTUAL_TOKEN_RESERVE = C.VIRTUAL_TOKEN_RESERVE;
    uint256 public constant VIRTUAL_ETH_RESERVE = C.VIRTUAL_ETH_RESERVE;
    uint256 public constant GRADUATION_RESERVE = C.GRADUATION_RESERVE;
    uint256 public constant K = C.K;
    uint256 public constant FEE_DENOMINATOR = C.FEE_DENOMINATOR;
    uint256 public constant TOTAL_FEE_BPS = C.TOTAL_FEE_BPS;
    uint256 public constant INITIAL_PRICE = 937_500_000;
    uint256 public constant TERMINAL_PRICE = 15_000_000_000;
    uint256 public constant EXACT_GRADUATION_GROSS = 3_030_303_030_303_030_303;

    address public immutable factory;
    address public immutable token;
    address public immutable creator;
    IZonkFeeManagerV3 public immutable feeManager;
    IZonkGraduationManagerV3 public immutable graduationManager;

    /// @notice Curve tokens held outside the curve.
    uint256 public soldSupply;
    /// @notice Net ETH the curve holds for redemptions; zero once graduated (the ETH is forwarded).
    uint256 public activeEthReserve;
    /// @notice The reserve coordinate frozen at graduation (3 ETH), used for the terminal price.
    uint256 public terminalGraduationReserve;
    /// @notice ETH actually forwarded to the graduation manager (3 ETH once graduated).
    uint256 public graduationEthForwarded;
    bool public graduated;

    constructor(address factory_, address token_, address creator_, address feeManager_, address graduationManager_) {
        factory = factory_;
        token = token_;
        creator = creator_;
        feeManager = IZonkFeeManagerV3(feeManager_);
        graduationManager = IZonkGraduationManagerV3(graduationManager_);
    }

    /// @notice The buy `grossInput` wei would make now (after the graduation cap and fees).
    function quoteBuy(uint256 grossInput) public view returns (BuyQuote memory quote) {
        if (grossInput == 0) revert InvalidAmount();
        if (graduated) revert TradingClosed();
        uint256 netNeeded = C.GRADUATION_RESERVE - activeEthReserve;
        uint256 submittedNet = grossInput - splitFee(grossInput).totalFee;
        quote.submittedGross = grossInput;
        quote.acceptedGross = submittedNet >= netNeeded ? grossRequiredForNet(netNeeded) : grossInput;
        (quote.totalFee, quote.creatorFee, quote.protocolFee, quote.communityFee, quote.traderRewardsFee) =
            _feeParts(quote.acceptedGross);
        quote.netCurveInput = quote.acceptedGross - quote.totalFee;
        quote.refund = grossInput - quote.acceptedGross;

        uint256 postReserve = activeEthReserve + quote.netCurveInput;
        if (postReserve > C.GRADUATION_RESERVE) revert GraduationAccountingMismatch();
        quote.reachesGraduation = postReserve == C.GRADUATION_RESERVE;
        uint256 remaining = C.CURVE_ALLOCATION - soldSupply;
        quote.tokensOut = quote.reachesGraduation
            ? remaining
            : virtualTokenReserve() - _ceilDiv(C.K, C.VIRTUAL_ETH_RESERVE + postReserve);
        if (quote.tokensOut == 0) revert DustTrade();
        if (quote.tokensOut > remaining) revert InsufficientCurveInventory();
    }

    /// @notice The sell of `tokensIn` would make now (gross output from the invariant, fee on it).
    function quoteSell(uint256 tokensIn) public view returns (SellQuote memory quote) {
        if (graduated) revert TradingClosed();
        if (tokensIn == 0 || tokensIn > soldSupply) revert InvalidAmount();
        uint256 postVirtualEth = _ceilDiv(C.K, C.VIRTUAL_TOKEN_RESERVE - (soldSupply - tokensIn));
        quote.tokensIn = tokensIn;
        quote.grossCurveOutput = virtualEthReserve() - postVirtualEth;
        if (quote.grossCurveOutput == 0) revert DustTrade();
        if (quote.grossCurveOutput > activeEthReserve) revert InsufficientReserve();
        (quote.totalFee, quote.creatorFee, quote.protocolFee, quote.communityFee, quote.traderRewardsFee) =
            _feeParts(quote.grossCurveOutput);
        quote.netSellerOutput = quote.grossCurveOutput - quote.totalFee;
    }

    /// @notice Buys with `msg.value`; refunds what exceeds the graduation cap.
    function buy(uint256 minTokensOut, uint256 deadline) external payable nonReentrant returns (BuyQuote memory quote) {
        if (block.timestamp > deadline) revert DeadlineExpired();
        quote = quoteBuy(msg.value);
        if (quote.tokensOut < minTokensOut) revert SlippageExceeded();

        soldSupply += quote.tokensOut;
        activeEthReserve += quote.netCurveInput;
        if (quote.reachesGraduation) graduated = true;

        IERC20(token).safeTransfer(msg.sender, quote.tokensOut);
        feeManager.depositFees{value: quote.totalFee}(
            token, quote.totalFee, quote.creatorFee, quote.protocolFee, quote.communityFee, quote.traderRewardsFee, true
        );
        if (quote.reachesGraduation) _graduate();
        if (quote.refund != 0) _sendNative(msg.sender, quote.refund);

        emit TokensBought(
            token,
            msg.sender,
            quote.submittedGross,
            quote.acceptedGross,
            quote.netCurveInput,
            quote.tokensOut,
            quote.totalFee,
            quote.creatorFee,
            quote.protocolFee,
            quote.communityFee,
            quote.traderRewardsFee,
            quote.refund
        );
    }

    /// @notice Sells `tokensIn` (needs an allowance to this curve) for at least `minEthOut` wei net.
    function sell(uint256 tokensIn, uint256 minEthOut, uint256 deadline)
        external
        nonReentrant
        returns (SellQuote memory quote)
    {
        if (block.timestamp > deadline) revert DeadlineExpired();
        quote = quoteSell(tokensIn);
        if (quote.netSellerOutput < minEthOut) revert SlippageExceeded();

        soldSupply -= tokensIn;
        activeEthReserve -= quote.grossCurveOutput;
        IERC20(token).safeTransferFrom(msg.sender, address(this), tokensIn);
        feeManager.depositFees{value: quote.totalFee}(
            token, quote.totalFee, quote.creatorFee, quote.protocolFee, quote.communityFee, quote.traderRewardsFee, false
        );
        _sendNative(msg.sender, quote.netSellerOutput);

        emit TokensSold(
            token,
            msg.sender,
            tokensIn,
            quote.grossCurveOutput,
            quote.netSellerOutput,
            quote.totalFee,
            quote.creatorFee,
            quote.protocolFee,
            quote.communityFee,
            quote.traderRewardsFee
        );
    }

    /// @notice ceil(virtualEthReserve × 1e18 / virtualTokenReserve): wei per whole token.
    function spotPrice() public view returns (uint256) {
        return Math.mulDiv(virtualEthReserve(), 1 ether, virtualTokenReserve(), Math.Rounding.Ceil);
    }

    /// @notice VTR − soldSupply.
    function virtualTokenReserve() public view returns (uint256) {
        return C.VIRTUAL_TOKEN_RESERVE - soldSupply;
    }

    /// @notice VER + reserveCoordinate.
    function virtualEthReserve() public view returns (uint256) {
        return C.VIRTUAL_ETH_RESERVE + reserveCoordinate();
    }

    /// @notice Net ETH held for redemptions; after graduation the terminal reserve (3 ETH).
    function reserveCoordinate() public view returns (uint256) {
        return graduated ? terminalGraduationReserve : activeEthReserve;
    }

    /// @notice ETH held beyond the active reserve (e.g. forced in); never part of quotes or prices.
    function unaccountedEth() external view returns (uint256) {
        uint256 balance = address(this).balance;
        return balance > activeEthReserve ? balance - activeEthReserve : 0;
    }

    /// @notice keccak256("zonk-fee-design-b-v3"): identifies the 1 % fee and its 35/20/15/rest split.
    function feePolicyHash() external pure returns (bytes32) {
        return C.FEE_POLICY_HASH;
    }

    /// @notice Smallest gross whose net after the 1 % fee is exactly `netAmount`.
    function grossRequiredForNet(uint256 netAmount) public pure returns (uint256 gross) {
        if (netAmount == 0) return 0;
        gross = netAmount + (netAmount - 1) / ((C.FEE_DENOMINATOR - C.TOTAL_FEE_BPS) / C.TOTAL_FEE_BPS);
        if (gross - splitFee(gross).totalFee != netAmount) revert GraduationAccountingMismatch();
    }

    /// @notice 1 % of `grossAmount`, split 35 % creator, 20 % community, 15 % trader rewards, rest protocol.
    function splitFee(uint256 grossAmount) public pure returns (FeeSplit memory fees) {
        fees.totalFee = grossAmount * C.TOTAL_FEE_BPS / C.FEE_DENOMINATOR;
        fees.creatorFee = fees.totalFee * C.CREATOR_FEE_PERCENT / 100;
        fees.communityFee = fees.totalFee * C.COMMUNITY_FEE_PERCENT / 100;
        fees.traderRewardsFee = fees.totalFee * C.TRADER_REWARDS_FEE_PERCENT / 100;
        fees.protocolFee = fees.totalFee - fees.creatorFee - fees.communityFee - fees.traderRewardsFee;
    }

    receive() external payable {
        revert UnexpectedEther();
    }

    function _graduate() private {
        if (soldSupply != C.CURVE_ALLOCATION || activeEthReserve != C.GRADUATION_RESERVE) {
            revert GraduationAccountingMismatch();
        }
        uint256 forwarded = activeEthReserve;
        terminalGraduationReserve = forwarded;
        graduationEthForwarded = forwarded;
        activeEthReserve = 0;
        IERC20(token).safeTransfer(address(graduationManager), C.LP_ALLOCATION);
        graduationManager.graduate{value: forwarded}(token, creator, C.LP_ALLOCATION, forwarded);
        emit GraduationReserveForwarded(terminalGraduationReserve, forwarded);
        emit Graduated(token, address(graduationManager), C.LP_ALLOCATION, forwarded, soldSupply);
    }

    /// @dev `splitFee(grossAmount)` as (total, creator, protocol, community, trader rewards), the order
    /// of the quotes' fee fields.
    function _feeParts(uint256 grossAmount) private pure returns (uint256, uint256, uint256, uint256, uint256) {
        FeeSplit memory fees = splitFee(grossAmount);
        return (fees.totalFee, fees.creatorFee, fees.protocolFee, fees.communityFee, fees.traderRewardsFee);
    }

    function _sendNative(address recipient, uint256 amount) private {
        (bool ok,) = payable(recipient).call{value: amount}("");
        if (!ok) revert NativeTransferFailed();
    }

    function _ceilDiv(uint256 numerator, uint256 denominator) private pure returns (uint256) {
        return numerator == 0 ? 0 : (numerator - 1) / denominator + 1;
    }
}
