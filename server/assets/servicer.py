from __future__ import annotations

import dataclasses

import grpc
from paygate.v1 import assets_pb2, assets_pb2_grpc

from server.assets.catalogue import Asset
from server.errors import Unauthenticated
from server.rpc.context import current_caller
from server.runtime import Runtime


def to_proto(asset: Asset) -> assets_pb2.Asset:
    return assets_pb2.Asset(**dataclasses.asdict(asset))


class AssetServicer(assets_pb2_grpc.AssetServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self._all = [to_proto(a) for a in rt.catalogue.assets]
        self._mode = {live: [to_proto(a) for a in rt.catalogue.for_mode(live)] for live in (False, True)}

    async def ListAssets(self, request: assets_pb2.ListAssetsRequest,
                         context: grpc.aio.ServicerContext) -> assets_pb2.ListAssetsResponse:
        return assets_pb2.ListAssetsResponse(assets=self._mode[current_caller().livemode])

    async def ListAllAssets(self, request: assets_pb2.ListAllAssetsRequest,
                            context: grpc.aio.ServicerContext) -> assets_pb2.ListAllAssetsResponse:
        return assets_pb2.ListAllAssetsResponse(assets=self._all)

    async def ListAssetFees(self, request: assets_pb2.ListAssetFeesRequest,
                            context: grpc.aio.ServicerContext) -> assets_pb2.ListAssetFeesResponse:
        percent = format(self._rt.settings.tx_fee_percent, "f")
        fees = [assets_pb2.AssetFee(asset_id=a.id, tx_fee_percent=percent, tx_fee_fixed="0")
                for a in self._mode[current_caller().livemode] if not a.is_fiat]
        return assets_pb2.ListAssetFeesResponse(fees=fees)

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
        return assets_pb2.ListMerchantAssetsResponse(assets=[a for a in self._mode[livemode] if a.payable])
