from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from paygate.v1 import options_pb2 as _options_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Asset(_message.Message):
    __slots__ = ("id", "display_name", "coin", "is_fiat", "decimals", "payable", "network", "is_mainnet", "contract_address", "address_url_template", "tx_url_template", "token", "chain_id", "symbol", "provider")
    ID_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    COIN_FIELD_NUMBER: _ClassVar[int]
    IS_FIAT_FIELD_NUMBER: _ClassVar[int]
    DECIMALS_FIELD_NUMBER: _ClassVar[int]
    PAYABLE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    IS_MAINNET_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_URL_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    TX_URL_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    CHAIN_ID_FIELD_NUMBER: _ClassVar[int]
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    id: str
    display_name: str
    coin: str
    is_fiat: bool
    decimals: int
    payable: bool
    network: str
    is_mainnet: bool
    contract_address: str
    address_url_template: str
    tx_url_template: str
    token: str
    chain_id: int
    symbol: str
    provider: str
    def __init__(self, id: _Optional[str] = ..., display_name: _Optional[str] = ..., coin: _Optional[str] = ..., is_fiat: _Optional[bool] = ..., decimals: _Optional[int] = ..., payable: _Optional[bool] = ..., network: _Optional[str] = ..., is_mainnet: _Optional[bool] = ..., contract_address: _Optional[str] = ..., address_url_template: _Optional[str] = ..., tx_url_template: _Optional[str] = ..., token: _Optional[str] = ..., chain_id: _Optional[int] = ..., symbol: _Optional[str] = ..., provider: _Optional[str] = ...) -> None: ...

class ListAssetsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListAssetsResponse(_message.Message):
    __slots__ = ("assets",)
    ASSETS_FIELD_NUMBER: _ClassVar[int]
    assets: _containers.RepeatedCompositeFieldContainer[Asset]
    def __init__(self, assets: _Optional[_Iterable[_Union[Asset, _Mapping]]] = ...) -> None: ...

class ListAllAssetsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListAllAssetsResponse(_message.Message):
    __slots__ = ("assets",)
    ASSETS_FIELD_NUMBER: _ClassVar[int]
    assets: _containers.RepeatedCompositeFieldContainer[Asset]
    def __init__(self, assets: _Optional[_Iterable[_Union[Asset, _Mapping]]] = ...) -> None: ...

class AssetFee(_message.Message):
    __slots__ = ("asset_id", "tx_fee_percent", "tx_fee_fixed")
    ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    TX_FEE_PERCENT_FIELD_NUMBER: _ClassVar[int]
    TX_FEE_FIXED_FIELD_NUMBER: _ClassVar[int]
    asset_id: str
    tx_fee_percent: str
    tx_fee_fixed: str
    def __init__(self, asset_id: _Optional[str] = ..., tx_fee_percent: _Optional[str] = ..., tx_fee_fixed: _Optional[str] = ...) -> None: ...

class NetworkFee(_message.Message):
    __slots__ = ("min_payout_amount", "fee_amount")
    MIN_PAYOUT_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    FEE_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    min_payout_amount: str
    fee_amount: str
    def __init__(self, min_payout_amount: _Optional[str] = ..., fee_amount: _Optional[str] = ...) -> None: ...

class ListAssetFeesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListAssetFeesResponse(_message.Message):
    __slots__ = ("fees", "network_fees")
    class NetworkFeesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: NetworkFee
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[NetworkFee, _Mapping]] = ...) -> None: ...
    FEES_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FEES_FIELD_NUMBER: _ClassVar[int]
    fees: _containers.RepeatedCompositeFieldContainer[AssetFee]
    network_fees: _containers.MessageMap[str, NetworkFee]
    def __init__(self, fees: _Optional[_Iterable[_Union[AssetFee, _Mapping]]] = ..., network_fees: _Optional[_Mapping[str, NetworkFee]] = ...) -> None: ...

class ListMerchantAssetsRequest(_message.Message):
    __slots__ = ("merchant_id", "key")
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    merchant_id: str
    key: str
    def __init__(self, merchant_id: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class ListMerchantAssetsResponse(_message.Message):
    __slots__ = ("assets",)
    ASSETS_FIELD_NUMBER: _ClassVar[int]
    assets: _containers.RepeatedCompositeFieldContainer[Asset]
    def __init__(self, assets: _Optional[_Iterable[_Union[Asset, _Mapping]]] = ...) -> None: ...
