"""A merchant's payout address on the wire: the address API's answer, a payout's `receive_wallet_address` and an
approval's `payout_address` are one shape."""

from __future__ import annotations

from paygate.v1 import addresses_pb2 as pb

from server.treasury import signing_keys
from server.treasury.addresses import service as addresses
from server.treasury.addresses.models import MerchantAddress
from server.treasury.env import TreasuryEnv


def to_proto(rt: TreasuryEnv, row: MerchantAddress) -> pb.MerchantAddress:
    scheme = signing_keys.scheme(rt, row.network)  # shown as its family shows addresses (EVM: EIP-55 checksum)
    return pb.MerchantAddress(
        id=row.id, merchant_id=row.merchant_id, network=row.network,
        address=scheme.display_address(row.address) if scheme is not None else row.address,
        status=row.status, alias=row.alias, created_at=row.created_at, updated_at=row.updated_at,
        approval_status=row.approval_status, usable_from=row.usable_from,
        verification=pb.AddressVerification(
            id=row.verification_id, status=row.verification_status, merchant_address_id=row.id,
            asset_id=row.verification_asset_id, verified_at=row.verified_at, tried_times=row.tried_times,
            aml_status=row.aml_status, method=row.proof_method, nonce=row.verification_nonce,
            message=addresses.to_sign(row, scheme)))
