from __future__ import annotations

import dataclasses
from decimal import Decimal

import grpc
from paygate.v1 import assets_pb2, assets_pb2_grpc

from server.catalogue.catalogue import Asset
from server.context import current_caller
from server.errors import Unauthenticated
from server.runtime import Runtime


def to_proto(asset: Asset) -> assets_pb2.Asset:
    return assets_pb2.Asset(**dataclasses.asdict(asset))


class AssetServicer(assets_pb2_grpc.AssetServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self._all = list(rt.catalogue.assets)
        self._mode = {live: rt.catalogue.for_mode(live) for live in (False, True)}

    async def _listed(self, assets: list[Asset]) -> list[assets_pb2.Asset]:
        """A configured crypto asset is payable only while its network's RPC answers (DESIGN §12)."""
        answering = await self._rt.health.answering()
        return [to_proto(a if a.is_fiat or a.network in answering else dataclasses.replace(a, payable=False))
                for a in assets]

    async def ListAssets(self, request: assets_pb2.ListAssetsRequest,
                         context: grpc.aio.ServicerContext) -> assets_pb2.ListAssetsResponse:
        return assets_pb2.ListAssetsResponse(assets=await self._listed(self._mode[current_caller().livemode]))

    async def ListAllAssets(self, request: assets_pb2.ListAllAssetsRequest,
                            context: grpc.aio.ServicerContext) -> assets_pb2.ListAllAssetsResponse:
        return assets_pb2.ListAllAssetsResponse(assets=await self._listed(self._all))

    async def ListAssetFees(self, request: assets_pb2.ListAssetFeesRequest,
                            context: grpc.aio.ServicerContext) -> assets_pb2.ListAssetFeesResponse:
        percent = format(self._rt.settings.tx_fee_percent, "f")
        crypto = [a for a in self._mode[current_caller().livemode] if not a.is_fiat]
        fees = [assets_pb2.AssetFee(asset_id=a.id, tx_fee_percent=percent, tx_fee_fixed="0") for a in crypto]
        # The smallest payout is one base unit. The network fee of a payout is quoted from the chain when it is
        # sent (DESIGN §6: net_amount = amount - network_fee), so no fixed fee is promised here.
        network = {a.id: assets_pb2.NetworkFee(min_payout_amount=format(Decimal(1).scaleb(-a.decimals), "f"),
                                               fee_amount="0") for a in crypto}
        return assets_pb2.ListAssetFeesResponse(fees=fees, network_fees=network)

    async def ListMerchantAssets(self, request: assets_pb2.ListMerchantAssetsRequest,
                                 context: grpc.aio.ServicerContext) -> assets_pb2.ListMerchantAssetsResponse:
        # Every merchant of a mode accepts the same payable assets, so the answer never depends on whether the
        # merchant id exists: a public endpoint must not tell which merchant ids are real.
        livemode = True
        if request.key:
            caller = await self._rt.auth.public_key_caller(request.key)
            if caller.merchant_id != request.merchant_id:
                raise Unauthenticated("key: this public key does not belong to this merchant")
            livemode = caller.livemode
        return assets_pb2.ListMerchantAssetsResponse(assets=[a for a in await self._listed(self._mode[livemode])
                                                             if a.payable])
