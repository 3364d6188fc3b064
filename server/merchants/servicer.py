from __future__ import annotations

import grpc
from paygate.v1 import merchants_pb2, merchants_pb2_grpc

from server.context import current_caller
from server.errors import NotFound
from server.merchants.service import MODES, get_merchant, keys_of
from server.rails.registry import merchant_key_scheme
from server.runtime import Runtime
from server.wallet.addresses import treasury_address


class MerchantServicer(merchants_pb2_grpc.MerchantServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self._wallet = rt.keys
        self._scheme = merchant_key_scheme()

    async def GetCurrentMerchant(self, request: merchants_pb2.GetCurrentMerchantRequest,
                                 context: grpc.aio.ServicerContext) -> merchants_pb2.GetCurrentMerchantResponse:
        caller = current_caller()
        async with self._rt.db.read() as session:
            merchant = await get_merchant(session, caller.merchant_id)
            if merchant is None:
                raise NotFound("merchant", caller.merchant_id)
            keys = await keys_of(session, merchant.id)
            treasury = {live: await treasury_address(session, self._wallet, self._scheme, merchant.id, live,
                                                    allocate=False)
                        for live in MODES}
        if None in treasury.values():  # a merchant made before wallets existed: allocate its accounts once
            async with self._rt.db.transaction() as session:
                treasury = {live: await treasury_address(session, self._wallet, self._scheme, merchant.id, live)
                            for live in MODES}
        out = merchants_pb2.Merchant(id=merchant.id, object="merchant", name=merchant.name, merchant_id=merchant.id,
                                     livemode=caller.livemode, created=merchant.created)
        for key in keys:
            mode = getattr(out, MODES[key.livemode])
            stored = treasury[key.livemode]
            mode.treasury_address = self._scheme.display_address(stored) if stored else ""
            if key.kind == "public":
                mode.public_key = key.lookup
            else:
                mode.secret_key_hint = key.hint + "…"
        return merchants_pb2.GetCurrentMerchantResponse(merchant=out)
