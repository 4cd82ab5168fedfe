/**
 * One descriptor of the data-node REST responses the exporter reads, written from
 * /work/shared/reference/datanode-schema-v0.79.md (field list, JSON type/format, enum lists) and
 * datanode-api.md (encodings: int64/uint64 as quoted decimals, unset message = null, unset optional
 * field = omitted, empty list = [], doubles as numbers or "NaN"/"Infinity"/"-Infinity", unknown enum
 * values as integers, bytes as padded standard base64, RFC3339 statistics times).
 *
 * Both the zod schemas (schema.ts) and the fast-check arbitraries (arbitraries.ts) are compiled from
 * this one descriptor, so the two cannot drift apart.
 *
 * Nothing here is derived from the exporter's or the simulator's source.
 */

// ---------------------------------------------------------------------------------------------
// Enums (verbatim from the "Enums" section of datanode-schema-v0.79.md)
// ---------------------------------------------------------------------------------------------

export const ENUMS = {
  ConditionOperator: [
    'OPERATOR_UNSPECIFIED',
    'OPERATOR_EQUALS',
    'OPERATOR_GREATER_THAN',
    'OPERATOR_GREATER_THAN_OR_EQUAL',
    'OPERATOR_LESS_THAN',
    'OPERATOR_LESS_THAN_OR_EQUAL',
  ],
  MarketTradingMode: [
    'TRADING_MODE_UNSPECIFIED',
    'TRADING_MODE_CONTINUOUS',
    'TRADING_MODE_BATCH_AUCTION',
    'TRADING_MODE_OPENING_AUCTION',
    'TRADING_MODE_MONITORING_AUCTION',
    'TRADING_MODE_NO_TRADING',
    'TRADING_MODE_SUSPENDED_VIA_GOVERNANCE',
    'TRADING_MODE_LONG_BLOCK_AUCTION',
    'TRADING_MODE_PROTOCOL_AUTOMATED_PURCHASE_AUCTION',
  ],
  OrderTimeInForce: [
    'TIME_IN_FORCE_UNSPECIFIED',
    'TIME_IN_FORCE_GTC',
    'TIME_IN_FORCE_GTT',
    'TIME_IN_FORCE_IOC',
    'TIME_IN_FORCE_FOK',
    'TIME_IN_FORCE_GFA',
    'TIME_IN_FORCE_GFN',
  ],
  NodeSignatureKind: [
    'NODE_SIGNATURE_KIND_UNSPECIFIED',
    'NODE_SIGNATURE_KIND_ASSET_NEW',
    'NODE_SIGNATURE_KIND_ASSET_WITHDRAWAL',
    'NODE_SIGNATURE_KIND_ERC20_MULTISIG_SIGNER_ADDED',
    'NODE_SIGNATURE_KIND_ERC20_MULTISIG_SIGNER_REMOVED',
    'NODE_SIGNATURE_KIND_ASSET_UPDATE',
  ],
  PropertyKeyType: ['TYPE_UNSPECIFIED', 'TYPE_EMPTY', 'TYPE_INTEGER', 'TYPE_STRING', 'TYPE_BOOLEAN', 'TYPE_DECIMAL', 'TYPE_TIMESTAMP'],
  AssetStatus: ['STATUS_UNSPECIFIED', 'STATUS_PROPOSED', 'STATUS_REJECTED', 'STATUS_PENDING_LISTING', 'STATUS_ENABLED'],
  AuctionTrigger: [
    'AUCTION_TRIGGER_UNSPECIFIED',
    'AUCTION_TRIGGER_BATCH',
    'AUCTION_TRIGGER_OPENING',
    'AUCTION_TRIGGER_PRICE',
    'AUCTION_TRIGGER_LIQUIDITY',
    'AUCTION_TRIGGER_LIQUIDITY_TARGET_NOT_MET',
    'AUCTION_TRIGGER_UNABLE_TO_DEPLOY_LP_ORDERS',
    'AUCTION_TRIGGER_GOVERNANCE_SUSPENSION',
    'AUCTION_TRIGGER_LONG_BLOCK',
    'AUCTION_TRIGGER_PROTOCOL_AUTOMATED_PURCHASE',
  ],
  ChainStatus: ['CHAIN_STATUS_UNSPECIFIED', 'CHAIN_STATUS_DISCONNECTED', 'CHAIN_STATUS_REPLAYING', 'CHAIN_STATUS_CONNECTED'],
  CompositePriceType: ['COMPOSITE_PRICE_TYPE_UNSPECIFIED', 'COMPOSITE_PRICE_TYPE_WEIGHTED', 'COMPOSITE_PRICE_TYPE_MEDIAN', 'COMPOSITE_PRICE_TYPE_LAST_TRADE'],
  LiquidityFeeSettingsMethod: ['METHOD_UNSPECIFIED', 'METHOD_MARGINAL_COST', 'METHOD_WEIGHTED_AVERAGE', 'METHOD_CONSTANT'],
  MarketState: [
    'STATE_UNSPECIFIED',
    'STATE_PROPOSED',
    'STATE_REJECTED',
    'STATE_PENDING',
    'STATE_CANCELLED',
    'STATE_ACTIVE',
    'STATE_SUSPENDED',
    'STATE_CLOSED',
    'STATE_TRADING_TERMINATED',
    'STATE_SETTLED',
    'STATE_SUSPENDED_VIA_GOVERNANCE',
  ],
  NodeStatus: ['NODE_STATUS_UNSPECIFIED', 'NODE_STATUS_VALIDATOR', 'NODE_STATUS_NON_VALIDATOR'],
  OrderError: [
    'ORDER_ERROR_UNSPECIFIED',
    'ORDER_ERROR_INVALID_MARKET_ID',
    'ORDER_ERROR_INVALID_ORDER_ID',
    'ORDER_ERROR_OUT_OF_SEQUENCE',
    'ORDER_ERROR_INVALID_REMAINING_SIZE',
    'ORDER_ERROR_TIME_FAILURE',
    'ORDER_ERROR_REMOVAL_FAILURE',
    'ORDER_ERROR_INVALID_EXPIRATION_DATETIME',
    'ORDER_ERROR_INVALID_ORDER_REFERENCE',
    'ORDER_ERROR_EDIT_NOT_ALLOWED',
    'ORDER_ERROR_AMEND_FAILURE',
    'ORDER_ERROR_NOT_FOUND',
    'ORDER_ERROR_INVALID_PARTY_ID',
    'ORDER_ERROR_MARKET_CLOSED',
    'ORDER_ERROR_MARGIN_CHECK_FAILED',
    'ORDER_ERROR_MISSING_GENERAL_ACCOUNT',
    'ORDER_ERROR_INTERNAL_ERROR',
    'ORDER_ERROR_INVALID_SIZE',
    'ORDER_ERROR_INVALID_PERSISTENCE',
    'ORDER_ERROR_INVALID_TYPE',
    'ORDER_ERROR_SELF_TRADING',
    'ORDER_ERROR_INSUFFICIENT_FUNDS_TO_PAY_FEES',
    'ORDER_ERROR_INCORRECT_MARKET_TYPE',
    'ORDER_ERROR_INVALID_TIME_IN_FORCE',
    'ORDER_ERROR_CANNOT_SEND_GFN_ORDER_DURING_AN_AUCTION',
    'ORDER_ERROR_CANNOT_SEND_GFA_ORDER_DURING_CONTINUOUS_TRADING',
    'ORDER_ERROR_CANNOT_AMEND_TO_GTT_WITHOUT_EXPIRYAT',
    'ORDER_ERROR_EXPIRYAT_BEFORE_CREATEDAT',
    'ORDER_ERROR_CANNOT_HAVE_GTC_AND_EXPIRYAT',
    'ORDER_ERROR_CANNOT_AMEND_TO_FOK_OR_IOC',
    'ORDER_ERROR_CANNOT_AMEND_TO_GFA_OR_GFN',
    'ORDER_ERROR_CANNOT_AMEND_FROM_GFA_OR_GFN',
    'ORDER_ERROR_CANNOT_SEND_IOC_ORDER_DURING_AUCTION',
    'ORDER_ERROR_CANNOT_SEND_FOK_ORDER_DURING_AUCTION',
    'ORDER_ERROR_MUST_BE_LIMIT_ORDER',
    'ORDER_ERROR_MUST_BE_GTT_OR_GTC',
    'ORDER_ERROR_WITHOUT_REFERENCE_PRICE',
    'ORDER_ERROR_BUY_CANNOT_REFERENCE_BEST_ASK_PRICE',
    'ORDER_ERROR_OFFSET_MUST_BE_GREATER_OR_EQUAL_TO_ZERO',
    'ORDER_ERROR_SELL_CANNOT_REFERENCE_BEST_BID_PRICE',
    'ORDER_ERROR_OFFSET_MUST_BE_GREATER_THAN_ZERO',
    'ORDER_ERROR_INSUFFICIENT_ASSET_BALANCE',
    'ORDER_ERROR_CANNOT_AMEND_PEGGED_ORDER_DETAILS_ON_NON_PEGGED_ORDER',
    'ORDER_ERROR_UNABLE_TO_REPRICE_PEGGED_ORDER',
    'ORDER_ERROR_UNABLE_TO_AMEND_PRICE_ON_PEGGED_ORDER',
    'ORDER_ERROR_NON_PERSISTENT_ORDER_OUT_OF_PRICE_BOUNDS',
    'ORDER_ERROR_TOO_MANY_PEGGED_ORDERS',
    'ORDER_ERROR_POST_ONLY_ORDER_WOULD_TRADE',
    'ORDER_ERROR_REDUCE_ONLY_ORDER_WOULD_NOT_REDUCE_POSITION',
    'ORDER_ERROR_ISOLATED_MARGIN_CHECK_FAILED',
    'ORDER_ERROR_PEGGED_ORDERS_NOT_ALLOWED_IN_ISOLATED_MARGIN_MODE',
    'ORDER_ERROR_PRICE_NOT_IN_TICK_SIZE',
    'ORDER_ERROR_PRICE_MUST_BE_LESS_THAN_OR_EQUAL_TO_MAX_PRICE',
    'ORDER_ERROR_SELL_ORDER_NOT_ALLOWED',
  ],
  OrderStatus: [
    'STATUS_UNSPECIFIED',
    'STATUS_ACTIVE',
    'STATUS_EXPIRED',
    'STATUS_CANCELLED',
    'STATUS_STOPPED',
    'STATUS_FILLED',
    'STATUS_REJECTED',
    'STATUS_PARTIALLY_FILLED',
    'STATUS_PARKED',
  ],
  OrderType: ['TYPE_UNSPECIFIED', 'TYPE_LIMIT', 'TYPE_MARKET', 'TYPE_NETWORK'],
  PeggedReference: ['PEGGED_REFERENCE_UNSPECIFIED', 'PEGGED_REFERENCE_MID', 'PEGGED_REFERENCE_BEST_BID', 'PEGGED_REFERENCE_BEST_ASK'],
  PositionStatus: ['POSITION_STATUS_UNSPECIFIED', 'POSITION_STATUS_ORDERS_CLOSED', 'POSITION_STATUS_CLOSED_OUT', 'POSITION_STATUS_DISTRESSED'],
  Side: ['SIDE_UNSPECIFIED', 'SIDE_BUY', 'SIDE_SELL'],
  ValidatorNodeStatus: [
    'VALIDATOR_NODE_STATUS_UNSPECIFIED',
    'VALIDATOR_NODE_STATUS_TENDERMINT',
    'VALIDATOR_NODE_STATUS_ERSATZ',
    'VALIDATOR_NODE_STATUS_PENDING',
  ],
} as const satisfies Record<string, readonly string[]>;

export type EnumName = keyof typeof ENUMS;

// ---------------------------------------------------------------------------------------------
// Descriptor language
// ---------------------------------------------------------------------------------------------

/**
 * Scalar kinds (JSON form):
 *  uint64        "string/uint64": quoted canonical decimal, 0 ≤ v ≤ 2^64−1
 *  int64         "string/int64": quoted canonical decimal, −2^63 ≤ v ≤ 2^63−1 (unix-ns times too)
 *  int32         "integer/int32" and "integer/int64" (JSON numbers; 32-bit in the protocol)
 *  double        "number/double|float": JSON number, or "NaN" | "Infinity" | "-Infinity"
 *  bool, string  as is (any string, "" included)
 *  bytes         "string/byte": standard base64 with padding
 *  amount        no-format string holding an unsigned integer of any length (amounts, prices, stakes), or "" (unset)
 *  signedAmount  no-format string holding a signed integer of any length (PnL, loss socialisation, funding), or ""
 *  decimal       no-format string holding an unsigned decimal, fraction allowed ("0.05", fees), or ""
 *  signedDecimal no-format string holding a signed decimal (rates, bounds that can be negative), or ""
 *  rfc3339       statistics time: RFC3339 UTC "Z", 0–9 fractional digits ("0001-01-01T00:00:00Z" = unset)
 *  rfc3339OrEmpty same, or "" (genesisTime while the chain replays)
 */
export type ScalarKind =
  | 'uint64'
  | 'int64'
  | 'int32'
  | 'double'
  | 'bool'
  | 'string'
  | 'bytes'
  | 'amount'
  | 'signedAmount'
  | 'decimal'
  | 'signedDecimal'
  | 'rfc3339'
  | 'rfc3339OrEmpty';

export type Desc =
  | { t: 'scalar'; s: ScalarKind }
  | { t: 'enum'; e: EnumName }
  | { t: 'obj'; fields: Record<string, Field>; oneofs?: string[][] }
  | { t: 'arr'; of: Desc }
  /** "object (not expanded here)": any JSON object; keys listed in `known` are typed. */
  | { t: 'opaque'; known?: Record<string, Field> }
  | { t: 'nullable'; of: Desc };

/**
 * The releases the exporter supports (oldest first). A field whose `since` is later than the release a
 * body is checked against may be absent from it; from its `since` on it is required as before.
 */
export const RELEASES = ['0.73', '0.74', '0.75', '0.76', '0.77', '0.78', '0.79'] as const;
export type Release = (typeof RELEASES)[number];
export const LATEST: Release = '0.79';

export interface Field {
  d: Desc;
  optional: boolean;
  since?: Release;
}

type FieldInput = Desc | Field;
const isField = (x: FieldInput): x is Field => (x as Field).d !== undefined && 'optional' in x;
const toFields = (f: Record<string, FieldInput>): Record<string, Field> =>
  Object.fromEntries(Object.entries(f).map(([k, v]) => [k, isField(v) ? v : { d: v, optional: false }]));

const sc = (s: ScalarKind): Desc => ({ t: 'scalar', s });
export const U64 = sc('uint64');
export const I64 = sc('int64');
export const I32 = sc('int32');
export const DBL = sc('double');
export const BOOL = sc('bool');
export const STR = sc('string');
export const BYTES = sc('bytes');
export const AMT = sc('amount');
export const SAMT = sc('signedAmount');
export const DEC = sc('decimal');
export const SDEC = sc('signedDecimal');
export const TIME = sc('rfc3339');
export const TIME_OR_EMPTY = sc('rfc3339OrEmpty');
/** unix-nanosecond time: a string/int64 (kept distinct only for readability) */
export const NS = I64;

export const en = (e: EnumName): Desc => ({ t: 'enum', e });
export const arr = (of: Desc): Desc => ({ t: 'arr', of });
/** a plain JSON object (top-level response or a non-message value) */
export const obj = (fields: Record<string, FieldInput>, oneofs?: string[][]): Desc =>
  oneofs ? { t: 'obj', fields: toFields(fields), oneofs } : { t: 'obj', fields: toFields(fields) };
/** a protobuf message-typed field: an object, or null when unset */
export const msg = (fields: Record<string, FieldInput>, oneofs?: string[][]): Desc => ({ t: 'nullable', of: obj(fields, oneofs) });
/** an unexpanded message (object, or null when unset) */
export const opaque = (known?: Record<string, FieldInput>): Desc => ({ t: 'nullable', of: known ? { t: 'opaque', known: toFields(known) } : { t: 'opaque' } });
/** a field that may be absent (proto3 `optional`, or a member of a oneof) */
export const opt = (d: Desc): Field => ({ d, optional: true });
/** a field first published in `release`: bodies of older releases may lack it */
export const since = (release: Release, d: Desc | Field): Field => ({ ...(isField(d) ? d : { d, optional: false }), since: release });

// ---------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------

const pageInfo = obj({ hasNextPage: BOOL, hasPreviousPage: BOOL, startCursor: STR, endCursor: STR });
/** `{<key>: {edges: [{node, cursor}], pageInfo}}` */
const connection = (key: string, node: Desc): Desc => obj({ [key]: msg({ edges: arr(obj({ node: node, cursor: STR })), pageInfo: pageInfo }) });
// Note: node inside an edge is a message; an edge whose node is null is not something a real node sends,
// but the encoding rule (unset message = null) allows it, so `node` is nullable below via msg().

const condition = obj({ operator: en('ConditionOperator'), value: STR });
const propertyKey = msg({ name: STR, type: en('PropertyKeyType'), numberDecimalPlaces: opt(U64) });
const filter = obj({ key: propertyKey, conditions: arr(opaque()) });

const dataSourceDefinition = obj(
  {
    internal: opt(
      msg(
        {
          time: opt(msg({ conditions: arr(condition) })),
          timeTrigger: opt(
            msg({
              conditions: arr(condition),
              triggers: arr(obj({ initial: opt(I64), every: I64 })),
            }),
          ),
        },
        [['time', 'timeTrigger']],
      ),
    ),
    external: opt(
      msg(
        {
          oracle: opt(
            msg({
              signers: arr(
                obj(
                  {
                    pubKey: opt(msg({ key: STR })),
                    ethAddress: opt(msg({ address: STR })),
                  },
                  [['pubKey', 'ethAddress']],
                ),
              ),
              filters: arr(filter),
            }),
          ),
          ethOracle: opt(
            msg({
              address: STR,
              abi: STR,
              method: STR,
              args: arr(opaque()),
              trigger: msg(
                {
                  timeTrigger: opt(msg({ initial: opt(U64), every: opt(U64), until: opt(U64) })),
                },
                [['timeTrigger']],
              ),
              requiredConfirmations: U64,
              filters: arr(filter),
              normalisers: arr(obj({ name: STR, expression: STR })),
              sourceChainId: U64,
            }),
          ),
        },
        [['oracle', 'ethOracle']],
      ),
    ),
  },
  [['internal', 'external']],
);

const instrument = msg(
  {
    id: STR,
    code: STR,
    name: STR,
    // "not expanded here"; the exporter reads metadata.tags (docs/metrics.md), so tags is typed.
    metadata: opaque({ tags: opt(arr(STR)) }),
    future: opt(
      msg({
        settlementAsset: STR,
        quoteName: STR,
        dataSourceSpecForSettlementData: opaque(),
        dataSourceSpecForTradingTermination: opaque(),
        dataSourceSpecBinding: opaque(),
        cap: opt(msg({ maxPrice: AMT, binarySettlement: opt(BOOL), fullyCollateralised: opt(BOOL) })),
      }),
    ),
    spot: opt(msg({ baseAsset: STR, quoteAsset: STR })),
    perpetual: opt(
      msg({
        settlementAsset: STR,
        quoteName: STR,
        marginFundingFactor: DEC,
        interestRate: SDEC,
        clampLowerBound: SDEC,
        clampUpperBound: SDEC,
        dataSourceSpecForSettlementSchedule: opaque(),
        dataSourceSpecForSettlementData: opaque(),
        dataSourceSpecBinding: opaque(),
        fundingRateScalingFactor: opt(DEC),
        fundingRateLowerBound: opt(SDEC),
        fundingRateUpperBound: opt(SDEC),
        internalCompositePriceConfig: opt(opaque()),
      }),
    ),
  },
  [['future', 'spot', 'perpetual']],
);

const tradableInstrument = msg(
  {
    instrument,
    marginCalculator: msg({
      scalingFactors: msg({ searchLevel: DBL, initialMargin: DBL, collateralRelease: DBL }),
      fullyCollateralised: opt(BOOL),
    }),
    logNormalRiskModel: opt(
      msg({
        riskAversionParameter: DBL,
        tau: DBL,
        params: msg({ mu: DBL, r: DBL, sigma: DBL }),
        riskFactorOverride: opt(msg({ short: DEC, long: DEC })),
      }),
    ),
    simpleRiskModel: opt(
      msg({
        params: msg({ factorLong: DBL, factorShort: DBL, maxMoveUp: DBL, minMoveDown: DBL, probabilityOfTrading: DBL }),
      }),
    ),
  },
  [['logNormalRiskModel', 'simpleRiskModel']],
);

const priceMonitoringTrigger = obj({ horizon: I64, probability: DEC, auctionExtension: I64 });

export const MARKET = msg({
  id: STR,
  tradableInstrument,
  decimalPlaces: U64,
  fees: msg({
    factors: msg({
      makerFee: DEC,
      infrastructureFee: DEC,
      liquidityFee: DEC,
      treasuryFee: since('0.78', DEC),
      buyBackFee: since('0.78', DEC),
    }),
    liquidityFeeSettings: since('0.74', msg({ method: en('LiquidityFeeSettingsMethod'), feeConstant: opt(DEC) })),
  }),
  openingAuction: msg({ duration: I64, volume: U64 }),
  priceMonitoringSettings: msg({ parameters: msg({ triggers: arr(priceMonitoringTrigger) }) }),
  liquidityMonitoringParameters: msg({
    targetStakeParameters: msg({ timeWindow: I64, scalingFactor: DBL }),
    triggeringRatio: DEC,
    auctionExtension: I64,
  }),
  tradingMode: en('MarketTradingMode'),
  state: en('MarketState'),
  marketTimestamps: msg({ proposed: NS, pending: NS, open: NS, close: NS }),
  positionDecimalPlaces: I64,
  lpPriceRange: DEC,
  linearSlippageFactor: DEC,
  quadraticSlippageFactor: DEC,
  parentMarketId: opt(STR),
  insurancePoolFraction: opt(DEC),
  successorMarketId: opt(STR),
  liquiditySlaParams: opt(
    msg({
      priceRange: DEC,
      commitmentMinTimeFraction: DEC,
      performanceHysteresisEpochs: U64,
      slaCompetitionFactor: DEC,
    }),
  ),
  liquidationStrategy: since(
    '0.74',
    msg({
      disposalTimeStep: I64,
      disposalFraction: DEC,
      fullDisposalSize: U64,
      maxFractionConsumed: DEC,
      disposalSlippageRange: DEC,
    }),
  ),
  markPriceConfiguration: since(
    '0.75',
    msg({
      decayWeight: DEC,
      decayPower: U64,
      cashAmount: AMT,
      sourceWeights: arr(DEC),
      sourceStalenessTolerance: arr(STR),
      compositePriceType: en('CompositePriceType'),
      dataSourcesSpec: arr(dataSourceDefinition),
      dataSourcesSpecBinding: arr(obj({ priceSourceProperty: STR })),
    }),
  ),
  tickSize: since('0.76', AMT),
  enableTransactionReordering: since('0.77', BOOL),
  allowedEmptyAmmLevels: opt(U64),
  allowedSellers: since('0.78', arr(STR)),
});

const priceSourceState = msg({ priceSources: arr(obj({ priceSource: STR, price: AMT, lastUpdated: NS })) });

const MARKET_DATA = obj({
  markPrice: AMT,
  bestBidPrice: AMT,
  bestBidVolume: U64,
  bestOfferPrice: AMT,
  bestOfferVolume: U64,
  bestStaticBidPrice: AMT,
  bestStaticBidVolume: U64,
  bestStaticOfferPrice: AMT,
  bestStaticOfferVolume: U64,
  midPrice: AMT,
  staticMidPrice: AMT,
  market: STR,
  timestamp: NS,
  openInterest: U64,
  auctionEnd: NS,
  auctionStart: NS,
  indicativePrice: AMT,
  indicativeVolume: U64,
  marketTradingMode: en('MarketTradingMode'),
  trigger: en('AuctionTrigger'),
  extensionTrigger: en('AuctionTrigger'),
  targetStake: AMT,
  suppliedStake: AMT,
  priceMonitoringBounds: arr(
    obj({
      minValidPrice: AMT,
      maxValidPrice: AMT,
      trigger: msg({ horizon: I64, probability: DEC, auctionExtension: I64 }),
      referencePrice: DEC,
      active: since('0.77', BOOL),
    }),
  ),
  marketValueProxy: DEC,
  liquidityProviderFeeShare: arr(
    obj({
      party: STR,
      equityLikeShare: DEC,
      averageEntryValuation: DEC,
      averageScore: DEC,
      virtualStake: DEC,
    }),
  ),
  marketState: en('MarketState'),
  nextMarkToMarket: NS,
  lastTradedPrice: AMT,
  marketGrowth: SDEC,
  productData: opt(
    msg(
      {
        perpetualData: opt(
          msg({
            fundingPayment: SAMT,
            fundingRate: SDEC,
            internalTwap: AMT,
            externalTwap: AMT,
            seqNum: since('0.74', U64),
            startTime: since('0.74', NS),
            internalCompositePrice: since('0.75', AMT),
            nextInternalCompositePriceCalc: since('0.75', NS),
            internalCompositePriceType: since('0.75', en('CompositePriceType')),
            underlyingIndexPrice: since('0.76', AMT),
            internalCompositePriceState: since('0.76', priceSourceState),
          }),
        ),
      },
      [['perpetualData']],
    ),
  ),
  liquidityProviderSla: arr(
    obj({
      party: STR,
      currentEpochFractionOfTimeOnBook: DEC,
      lastEpochFractionOfTimeOnBook: DEC,
      lastEpochFeePenalty: DEC,
      lastEpochBondPenalty: DEC,
      hysteresisPeriodFeePenalties: arr(DEC),
      requiredLiquidity: DEC,
      notionalVolumeBuys: DEC,
      notionalVolumeSells: DEC,
    }),
  ),
  nextNetworkCloseout: since('0.74', NS),
  markPriceType: since('0.75', en('CompositePriceType')),
  markPriceState: since('0.76', priceSourceState),
  activeProtocolAutomatedPurchase: opt(msg({ id: STR, orderId: STR })),
});

const delegation = obj({ party: STR, nodeId: STR, amount: AMT, epochSeq: STR });
const NODE = msg({
  id: STR,
  pubKey: STR,
  tmPubKey: STR,
  ethereumAddress: STR,
  infoUrl: STR,
  location: STR,
  stakedByOperator: AMT,
  stakedByDelegates: AMT,
  stakedTotal: AMT,
  maxIntendedStake: AMT,
  pendingStake: AMT,
  epochData: msg({ total: I32, offline: I32, online: I32 }),
  status: en('NodeStatus'),
  delegations: arr(delegation),
  rewardScore: msg({
    rawValidatorScore: DEC,
    performanceScore: DEC,
    multisigScore: DEC,
    validatorScore: DEC,
    normalisedScore: DEC,
    validatorStatus: en('ValidatorNodeStatus'),
  }),
  rankingScore: msg({
    stakeScore: DEC,
    performanceScore: DEC,
    previousStatus: en('ValidatorNodeStatus'),
    status: en('ValidatorNodeStatus'),
    votingPower: I32,
    rankingScore: DEC,
  }),
  name: STR,
  avatarUrl: STR,
});

const nodeSet = msg({ total: I32, inactive: I32, promoted: arr(STR), demoted: arr(STR), maximum: opt(I32) });

const ERROR_DETAIL = obj({ '@type': STR, code: I32, message: STR, inner: STR });

// ---------------------------------------------------------------------------------------------
// Endpoints
// ---------------------------------------------------------------------------------------------

const rotations = connection('rotations', msg({ nodeId: STR, oldPubKey: STR, newPubKey: STR, blockHeight: U64 }));

export const DESCRIPTORS = {
  'GET /statistics': obj({
    statistics: msg({
      blockHeight: U64,
      backlogLength: U64,
      totalPeers: U64,
      genesisTime: TIME_OR_EMPTY,
      currentTime: TIME,
      vegaTime: TIME,
      status: en('ChainStatus'),
      txPerBlock: U64,
      averageTxBytes: U64,
      averageOrdersPerBlock: U64,
      tradesPerSecond: U64,
      ordersPerSecond: U64,
      totalMarkets: U64,
      totalAmendOrder: U64,
      totalCancelOrder: U64,
      totalCreateOrder: U64,
      totalOrders: U64,
      totalTrades: U64,
      orderSubscriptions: I32,
      tradeSubscriptions: I32,
      candleSubscriptions: I32,
      marketDepthSubscriptions: I32,
      positionsSubscriptions: I32,
      accountSubscriptions: I32,
      marketDataSubscriptions: I32,
      appVersionHash: STR,
      appVersion: STR,
      chainVersion: STR,
      blockDuration: U64,
      uptime: TIME,
      chainId: STR,
      marketDepthUpdatesSubscriptions: I32,
      blockHash: STR,
      epochSeq: U64,
      epochStartTime: TIME,
      epochExpiryTime: TIME,
      eventCount: U64,
      eventsPerSecond: U64,
    }),
  }),
  'GET /api/v2/info': obj({ version: STR, commitHash: STR }),
  'GET /api/v2/vega/time': obj({ timestamp: NS }),
  'GET /api/v2/networkhistory': obj({ ipfsAddress: STR, swarmKey: STR, swarmKeySeed: STR, connectedPeers: arr(STR) }),
  'GET /api/v2/networkhistory/segments': obj({
    segments: arr(
      obj({
        fromHeight: I64,
        toHeight: I64,
        historySegmentId: STR,
        previousHistorySegmentId: STR,
        databaseVersion: I64,
        chainId: STR,
      }),
    ),
  }),
  'GET /api/v2/vega/keys/rotations': rotations,
  /** the specification's path; real nodes serve `vega` literally (datanode-api.md "Ports and paths") */
  'GET /api/v2/chain/keys/rotations': rotations,
  /** core's path (core REST): ListMarketsResponse `{markets: [Market]}`; data nodes answer 404 */
  'GET /markets': obj({ markets: arr(MARKET) }),
  'GET /api/v2/markets': connection('markets', MARKET),
  'GET /api/v2/market/{marketId}': obj({ market: MARKET }),
  'GET /api/v2/markets/data': obj({ marketsData: arr(MARKET_DATA) }),
  'GET /api/v2/market/data/{marketId}/latest': obj({ marketData: { t: 'nullable', of: MARKET_DATA } }),
  'GET /api/v2/asset/{assetId}': obj({
    asset: msg({
      id: STR,
      details: msg(
        {
          name: STR,
          symbol: STR,
          decimals: U64,
          quantum: DEC,
          builtinAsset: opt(msg({ maxFaucetAmountMint: AMT })),
          erc20: opt(msg({ contractAddress: STR, lifetimeLimit: AMT, withdrawThreshold: AMT, chainId: since('0.77', STR) })),
        },
        [['builtinAsset', 'erc20']],
      ),
      status: en('AssetStatus'),
    }),
  }),
  'GET /api/v2/positions': connection(
    'positions',
    msg({
      marketId: STR,
      partyId: STR,
      openVolume: I64,
      realisedPnl: SAMT,
      unrealisedPnl: SAMT,
      averageEntryPrice: AMT,
      updatedAt: NS,
      lossSocialisationAmount: SAMT,
      positionStatus: en('PositionStatus'),
      takerFeesPaid: since('0.79', DEC),
      makerFeesReceived: since('0.79', DEC),
      feesPaid: since('0.79', DEC),
      takerFeesPaidSince: since('0.79', DEC),
      makerFeesReceivedSince: since('0.79', DEC),
      feesPaidSince: since('0.79', DEC),
      fundingPaymentAmount: since('0.79', SDEC),
      fundingPaymentAmountSince: since('0.79', SDEC),
    }),
  ),
  'GET /api/v2/parties': connection(
    'parties',
    msg({
      id: STR,
      alias: STR,
      // schema: "object (not expanded here)"; datanode-api.md shows `metadata: []` (repeated Metadata).
      metadata: arr(opaque()),
    }),
  ),
  'GET /api/v2/order/{orderId}': obj({
    order: msg({
      id: STR,
      marketId: STR,
      partyId: STR,
      side: en('Side'),
      price: AMT,
      size: U64,
      remaining: U64,
      timeInForce: en('OrderTimeInForce'),
      type: en('OrderType'),
      createdAt: NS,
      status: en('OrderStatus'),
      expiresAt: NS,
      reference: STR,
      reason: opt(en('OrderError')),
      updatedAt: NS,
      version: U64,
      batchId: U64,
      peggedOrder: msg({ reference: en('PeggedReference'), offset: AMT }),
      liquidityProvisionId: STR,
      postOnly: BOOL,
      reduceOnly: BOOL,
      icebergOrder: opt(msg({ peakSize: U64, minimumVisibleSize: U64, reservedRemaining: U64 })),
    }),
  }),
  'GET /api/v2/node/signatures': connection('signatures', msg({ id: STR, sig: BYTES, kind: en('NodeSignatureKind') })),
  'GET /api/v2/network/data': obj({
    nodeData: msg({
      stakedTotal: AMT,
      totalNodes: I32,
      inactiveNodes: I32,
      tendermintNodes: nodeSet,
      ersatzNodes: nodeSet,
      pendingNodes: nodeSet,
      uptime: DBL,
    }),
  }),
  'GET /api/v2/epoch': obj({
    epoch: msg({
      seq: U64,
      timestamps: msg({ startTime: NS, expiryTime: NS, endTime: NS, firstBlock: U64, lastBlock: U64 }),
      validators: arr(NODE),
      delegations: arr(delegation),
    }),
  }),
  'GET /api/v2/nodes': connection('nodes', NODE),
  /** every error answer, data node and gateway (datanode-api.md "Errors") */
  error: obj({ code: I32, message: STR, details: arr({ t: 'opaque', known: { '@type': opt(STR) } }) }),
} satisfies Record<string, Desc>;

export type RouteKey = keyof typeof DESCRIPTORS;
export const ROUTES = Object.keys(DESCRIPTORS) as RouteKey[];

/** The typed form of a vega.ErrorDetail entry in error.details (checked when @type says so). */
export const ERROR_DETAIL_DESCRIPTOR = ERROR_DETAIL;
export const ERROR_DETAIL_TYPE = 'type.googleapis.com/vega.ErrorDetail';
