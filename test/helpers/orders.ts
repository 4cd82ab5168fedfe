/**
 * A hand-written v0.79 order (GET /api/v2/order/{id}, datanode-schema-v0.79.md): a live limit order
 * with every field the release sends, to be overridden field by field.
 */
export function orderBody(over: Record<string, unknown> = {}): { order: Record<string, unknown> } {
  return {
    order: {
      id: 'o-1',
      marketId: 'market-1',
      partyId: 'party-1',
      side: 'SIDE_BUY',
      price: '0',
      size: '5',
      remaining: '5',
      timeInForce: 'TIME_IN_FORCE_GTC',
      type: 'TYPE_LIMIT',
      createdAt: '0',
      status: 'STATUS_ACTIVE',
      expiresAt: '0',
      reference: '',
      updatedAt: '0',
      version: '1',
      batchId: '1',
      peggedOrder: null,
      liquidityProvisionId: '',
      postOnly: false,
      reduceOnly: false,
      ...over,
    },
  };
}
