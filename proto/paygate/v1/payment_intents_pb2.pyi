from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from paygate.v1 import customers_pb2 as _customers_pb2
from paygate.v1 import invoices_pb2 as _invoices_pb2
from paygate.v1 import money_pb2 as _money_pb2
from paygate.v1 import options_pb2 as _options_pb2
from paygate.v1 import payment_links_pb2 as _payment_links_pb2
from paygate.v1 import refunds_pb2 as _refunds_pb2
from paygate.v1 import subscriptions_pb2 as _subscriptions_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PaymentIntentStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAYMENT_INTENT_STATUS_UNSPECIFIED: _ClassVar[PaymentIntentStatus]
    PAYMENT_INTENT_STATUS_REQUIRES_PAYMENT_METHOD: _ClassVar[PaymentIntentStatus]
    PAYMENT_INTENT_STATUS_PROCESSING: _ClassVar[PaymentIntentStatus]
    PAYMENT_INTENT_STATUS_SUCCESS: _ClassVar[PaymentIntentStatus]
    PAYMENT_INTENT_STATUS_CANCELED: _ClassVar[PaymentIntentStatus]
    PAYMENT_INTENT_STATUS_REFUNDED: _ClassVar[PaymentIntentStatus]
    PAYMENT_INTENT_STATUS_PARTIAL_PAID: _ClassVar[PaymentIntentStatus]
    PAYMENT_INTENT_STATUS_COMPLETED: _ClassVar[PaymentIntentStatus]
    PAYMENT_INTENT_STATUS_CONFIRMED: _ClassVar[PaymentIntentStatus]

class PaymentIntentStage(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAYMENT_INTENT_STAGE_UNSPECIFIED: _ClassVar[PaymentIntentStage]
    PAYMENT_INTENT_STAGE_CREATED: _ClassVar[PaymentIntentStage]
    PAYMENT_INTENT_STAGE_AWAITING_PAYMENT: _ClassVar[PaymentIntentStage]
    PAYMENT_INTENT_STAGE_PROCESSING: _ClassVar[PaymentIntentStage]
    PAYMENT_INTENT_STAGE_PARTIAL_PAID: _ClassVar[PaymentIntentStage]
    PAYMENT_INTENT_STAGE_COMPLETED: _ClassVar[PaymentIntentStage]
    PAYMENT_INTENT_STAGE_CANCELED: _ClassVar[PaymentIntentStage]
    PAYMENT_INTENT_STAGE_EXPIRED: _ClassVar[PaymentIntentStage]
    PAYMENT_INTENT_STAGE_REFUNDED: _ClassVar[PaymentIntentStage]

class ChargeStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHARGE_STATUS_UNSPECIFIED: _ClassVar[ChargeStatus]
    CHARGE_STATUS_PENDING: _ClassVar[ChargeStatus]
    CHARGE_STATUS_SUCCESS: _ClassVar[ChargeStatus]
    CHARGE_STATUS_FAILED: _ClassVar[ChargeStatus]
    CHARGE_STATUS_EXPIRED: _ClassVar[ChargeStatus]

class TransactionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRANSACTION_STATUS_UNSPECIFIED: _ClassVar[TransactionStatus]
    TRANSACTION_STATUS_SUBMITTED: _ClassVar[TransactionStatus]
    TRANSACTION_STATUS_CONFIRMING: _ClassVar[TransactionStatus]
    TRANSACTION_STATUS_CONFIRMED: _ClassVar[TransactionStatus]

class UnfreezeWithdrawStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNFREEZE_WITHDRAW_STATUS_UNSPECIFIED: _ClassVar[UnfreezeWithdrawStatus]
    UNFREEZE_WITHDRAW_STATUS_PENDING: _ClassVar[UnfreezeWithdrawStatus]
    UNFREEZE_WITHDRAW_STATUS_SUBMITTED: _ClassVar[UnfreezeWithdrawStatus]
    UNFREEZE_WITHDRAW_STATUS_CONFIRMED: _ClassVar[UnfreezeWithdrawStatus]
    UNFREEZE_WITHDRAW_STATUS_FAILED: _ClassVar[UnfreezeWithdrawStatus]
PAYMENT_INTENT_STATUS_UNSPECIFIED: PaymentIntentStatus
PAYMENT_INTENT_STATUS_REQUIRES_PAYMENT_METHOD: PaymentIntentStatus
PAYMENT_INTENT_STATUS_PROCESSING: PaymentIntentStatus
PAYMENT_INTENT_STATUS_SUCCESS: PaymentIntentStatus
PAYMENT_INTENT_STATUS_CANCELED: PaymentIntentStatus
PAYMENT_INTENT_STATUS_REFUNDED: PaymentIntentStatus
PAYMENT_INTENT_STATUS_PARTIAL_PAID: PaymentIntentStatus
PAYMENT_INTENT_STATUS_COMPLETED: PaymentIntentStatus
PAYMENT_INTENT_STATUS_CONFIRMED: PaymentIntentStatus
PAYMENT_INTENT_STAGE_UNSPECIFIED: PaymentIntentStage
PAYMENT_INTENT_STAGE_CREATED: PaymentIntentStage
PAYMENT_INTENT_STAGE_AWAITING_PAYMENT: PaymentIntentStage
PAYMENT_INTENT_STAGE_PROCESSING: PaymentIntentStage
PAYMENT_INTENT_STAGE_PARTIAL_PAID: PaymentIntentStage
PAYMENT_INTENT_STAGE_COMPLETED: PaymentIntentStage
PAYMENT_INTENT_STAGE_CANCELED: PaymentIntentStage
PAYMENT_INTENT_STAGE_EXPIRED: PaymentIntentStage
PAYMENT_INTENT_STAGE_REFUNDED: PaymentIntentStage
CHARGE_STATUS_UNSPECIFIED: ChargeStatus
CHARGE_STATUS_PENDING: ChargeStatus
CHARGE_STATUS_SUCCESS: ChargeStatus
CHARGE_STATUS_FAILED: ChargeStatus
CHARGE_STATUS_EXPIRED: ChargeStatus
TRANSACTION_STATUS_UNSPECIFIED: TransactionStatus
TRANSACTION_STATUS_SUBMITTED: TransactionStatus
TRANSACTION_STATUS_CONFIRMING: TransactionStatus
TRANSACTION_STATUS_CONFIRMED: TransactionStatus
UNFREEZE_WITHDRAW_STATUS_UNSPECIFIED: UnfreezeWithdrawStatus
UNFREEZE_WITHDRAW_STATUS_PENDING: UnfreezeWithdrawStatus
UNFREEZE_WITHDRAW_STATUS_SUBMITTED: UnfreezeWithdrawStatus
UNFREEZE_WITHDRAW_STATUS_CONFIRMED: UnfreezeWithdrawStatus
UNFREEZE_WITHDRAW_STATUS_FAILED: UnfreezeWithdrawStatus

class PaymentIntent(_message.Message):
    __slots__ = ("id", "object", "amount", "payment_details", "canceled_at", "cancellation_reason", "client_secret", "created", "updated", "currency", "customer", "description", "livemode", "metadata", "payment_link_details", "merchant_order_id", "payment_method_type", "charges", "receipt_email", "status", "payment_intent_status", "complete_on_first_payment", "permanent_deposit", "permanent_deposit_asset_id", "expired_at", "unfreeze_withdraws", "invoice", "invoice_details", "subscription", "subscription_details", "payment_method_options", "return_url", "shipping_address", "amount_overpaid", "amount_received_late", "unexpected_funds")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_DETAILS_FIELD_NUMBER: _ClassVar[int]
    CANCELED_AT_FIELD_NUMBER: _ClassVar[int]
    CANCELLATION_REASON_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_LINK_DETAILS_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ORDER_ID_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_TYPE_FIELD_NUMBER: _ClassVar[int]
    CHARGES_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_EMAIL_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_INTENT_STATUS_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_ON_FIRST_PAYMENT_FIELD_NUMBER: _ClassVar[int]
    PERMANENT_DEPOSIT_FIELD_NUMBER: _ClassVar[int]
    PERMANENT_DEPOSIT_ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRED_AT_FIELD_NUMBER: _ClassVar[int]
    UNFREEZE_WITHDRAWS_FIELD_NUMBER: _ClassVar[int]
    INVOICE_FIELD_NUMBER: _ClassVar[int]
    INVOICE_DETAILS_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_DETAILS_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    SHIPPING_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_OVERPAID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_RECEIVED_LATE_FIELD_NUMBER: _ClassVar[int]
    UNEXPECTED_FUNDS_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    amount: _money_pb2.AssetAmount
    payment_details: PaymentDetails
    canceled_at: int
    cancellation_reason: str
    client_secret: str
    created: int
    updated: int
    currency: str
    customer: _customers_pb2.Customer
    description: str
    livemode: bool
    metadata: _struct_pb2.Struct
    payment_link_details: PaymentLinkDetails
    merchant_order_id: str
    payment_method_type: str
    charges: _containers.RepeatedCompositeFieldContainer[Charge]
    receipt_email: str
    status: PaymentIntentStatus
    payment_intent_status: PaymentIntentStage
    complete_on_first_payment: bool
    permanent_deposit: bool
    permanent_deposit_asset_id: str
    expired_at: int
    unfreeze_withdraws: _containers.RepeatedCompositeFieldContainer[UnfreezeWithdraw]
    invoice: str
    invoice_details: _invoices_pb2.Invoice
    subscription: str
    subscription_details: _subscriptions_pb2.Subscription
    payment_method_options: PaymentMethodOptions
    return_url: str
    shipping_address: _money_pb2.Address
    amount_overpaid: _money_pb2.AssetAmount
    amount_received_late: _money_pb2.AssetAmount
    unexpected_funds: _containers.RepeatedCompositeFieldContainer[UnexpectedFunds]
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., amount: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., payment_details: _Optional[_Union[PaymentDetails, _Mapping]] = ..., canceled_at: _Optional[int] = ..., cancellation_reason: _Optional[str] = ..., client_secret: _Optional[str] = ..., created: _Optional[int] = ..., updated: _Optional[int] = ..., currency: _Optional[str] = ..., customer: _Optional[_Union[_customers_pb2.Customer, _Mapping]] = ..., description: _Optional[str] = ..., livemode: _Optional[bool] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., payment_link_details: _Optional[_Union[PaymentLinkDetails, _Mapping]] = ..., merchant_order_id: _Optional[str] = ..., payment_method_type: _Optional[str] = ..., charges: _Optional[_Iterable[_Union[Charge, _Mapping]]] = ..., receipt_email: _Optional[str] = ..., status: _Optional[_Union[PaymentIntentStatus, str]] = ..., payment_intent_status: _Optional[_Union[PaymentIntentStage, str]] = ..., complete_on_first_payment: _Optional[bool] = ..., permanent_deposit: _Optional[bool] = ..., permanent_deposit_asset_id: _Optional[str] = ..., expired_at: _Optional[int] = ..., unfreeze_withdraws: _Optional[_Iterable[_Union[UnfreezeWithdraw, _Mapping]]] = ..., invoice: _Optional[str] = ..., invoice_details: _Optional[_Union[_invoices_pb2.Invoice, _Mapping]] = ..., subscription: _Optional[str] = ..., subscription_details: _Optional[_Union[_subscriptions_pb2.Subscription, _Mapping]] = ..., payment_method_options: _Optional[_Union[PaymentMethodOptions, _Mapping]] = ..., return_url: _Optional[str] = ..., shipping_address: _Optional[_Union[_money_pb2.Address, _Mapping]] = ..., amount_overpaid: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., amount_received_late: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., unexpected_funds: _Optional[_Iterable[_Union[UnexpectedFunds, _Mapping]]] = ...) -> None: ...

class PaymentDetails(_message.Message):
    __slots__ = ("amount_captured", "amount_refunded", "tx_fee", "tax_fee", "frozen_amount", "net_amount", "network_fee", "gas_fee")
    class GasFeeEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _money_pb2.AssetAmount
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ...) -> None: ...
    AMOUNT_CAPTURED_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_REFUNDED_FIELD_NUMBER: _ClassVar[int]
    TX_FEE_FIELD_NUMBER: _ClassVar[int]
    TAX_FEE_FIELD_NUMBER: _ClassVar[int]
    FROZEN_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    NET_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FEE_FIELD_NUMBER: _ClassVar[int]
    GAS_FEE_FIELD_NUMBER: _ClassVar[int]
    amount_captured: _money_pb2.AssetAmount
    amount_refunded: _money_pb2.AssetAmount
    tx_fee: _money_pb2.AssetAmount
    tax_fee: _money_pb2.AssetAmount
    frozen_amount: _money_pb2.AssetAmount
    net_amount: _money_pb2.AssetAmount
    network_fee: _money_pb2.AssetAmount
    gas_fee: _containers.MessageMap[str, _money_pb2.AssetAmount]
    def __init__(self, amount_captured: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., amount_refunded: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., tx_fee: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., tax_fee: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., frozen_amount: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., net_amount: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., network_fee: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., gas_fee: _Optional[_Mapping[str, _money_pb2.AssetAmount]] = ...) -> None: ...

class PaymentMethodOptions(_message.Message):
    __slots__ = ("crypto",)
    CRYPTO_FIELD_NUMBER: _ClassVar[int]
    crypto: CryptoPaymentOptions
    def __init__(self, crypto: _Optional[_Union[CryptoPaymentOptions, _Mapping]] = ...) -> None: ...

class CryptoPaymentOptions(_message.Message):
    __slots__ = ("asset_id", "amount", "token", "network", "decimals", "exchange_rate", "deposit_address", "expired_at", "payment_uri")
    ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    DECIMALS_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_RATE_FIELD_NUMBER: _ClassVar[int]
    DEPOSIT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    EXPIRED_AT_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_URI_FIELD_NUMBER: _ClassVar[int]
    asset_id: str
    amount: str
    token: str
    network: str
    decimals: int
    exchange_rate: str
    deposit_address: str
    expired_at: int
    payment_uri: str
    def __init__(self, asset_id: _Optional[str] = ..., amount: _Optional[str] = ..., token: _Optional[str] = ..., network: _Optional[str] = ..., decimals: _Optional[int] = ..., exchange_rate: _Optional[str] = ..., deposit_address: _Optional[str] = ..., expired_at: _Optional[int] = ..., payment_uri: _Optional[str] = ...) -> None: ...

class PaymentMethodOptionsInput(_message.Message):
    __slots__ = ("crypto", "fiat")
    CRYPTO_FIELD_NUMBER: _ClassVar[int]
    FIAT_FIELD_NUMBER: _ClassVar[int]
    crypto: CryptoPaymentInput
    fiat: FiatPaymentInput
    def __init__(self, crypto: _Optional[_Union[CryptoPaymentInput, _Mapping]] = ..., fiat: _Optional[_Union[FiatPaymentInput, _Mapping]] = ...) -> None: ...

class CryptoPaymentInput(_message.Message):
    __slots__ = ("asset_id",)
    ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    asset_id: str
    def __init__(self, asset_id: _Optional[str] = ...) -> None: ...

class FiatPaymentInput(_message.Message):
    __slots__ = ("currency", "save_payment_method", "payment_method_id", "token")
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    SAVE_PAYMENT_METHOD_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    currency: str
    save_payment_method: bool
    payment_method_id: str
    token: str
    def __init__(self, currency: _Optional[str] = ..., save_payment_method: _Optional[bool] = ..., payment_method_id: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class Charge(_message.Message):
    __slots__ = ("id", "object", "amount", "transactions", "refunded", "refunds", "created", "provider_b_payload", "provider_a_payload", "payment_provider", "payment_method_type", "payment_method_options", "exchange_rate", "status", "paid", "amount_captured", "amount_refunded", "captured", "currency", "customer", "description", "disputed", "failure_code", "failure_message", "fraud_details", "livemode", "metadata", "payment_intent", "receipt_email", "receipt_url", "review", "calculated_statement_descriptor")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TRANSACTIONS_FIELD_NUMBER: _ClassVar[int]
    REFUNDED_FIELD_NUMBER: _ClassVar[int]
    REFUNDS_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_B_PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_A_PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_PROVIDER_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_TYPE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_RATE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_CAPTURED_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_REFUNDED_FIELD_NUMBER: _ClassVar[int]
    CAPTURED_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DISPUTED_FIELD_NUMBER: _ClassVar[int]
    FAILURE_CODE_FIELD_NUMBER: _ClassVar[int]
    FAILURE_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FRAUD_DETAILS_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_INTENT_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_EMAIL_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_URL_FIELD_NUMBER: _ClassVar[int]
    REVIEW_FIELD_NUMBER: _ClassVar[int]
    CALCULATED_STATEMENT_DESCRIPTOR_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    amount: _money_pb2.AssetAmount
    transactions: _containers.RepeatedCompositeFieldContainer[TransactionDetails]
    refunded: bool
    refunds: _containers.RepeatedCompositeFieldContainer[_refunds_pb2.Refund]
    created: int
    provider_b_payload: _struct_pb2.Struct
    provider_a_payload: _struct_pb2.Struct
    payment_provider: str
    payment_method_type: str
    payment_method_options: PaymentMethodOptions
    exchange_rate: str
    status: ChargeStatus
    paid: bool
    amount_captured: _money_pb2.AssetAmount
    amount_refunded: _money_pb2.AssetAmount
    captured: bool
    currency: str
    customer: str
    description: str
    disputed: bool
    failure_code: str
    failure_message: str
    fraud_details: _struct_pb2.Struct
    livemode: bool
    metadata: _struct_pb2.Struct
    payment_intent: str
    receipt_email: str
    receipt_url: str
    review: _struct_pb2.Value
    calculated_statement_descriptor: str
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., amount: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., transactions: _Optional[_Iterable[_Union[TransactionDetails, _Mapping]]] = ..., refunded: _Optional[bool] = ..., refunds: _Optional[_Iterable[_Union[_refunds_pb2.Refund, _Mapping]]] = ..., created: _Optional[int] = ..., provider_b_payload: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., provider_a_payload: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., payment_provider: _Optional[str] = ..., payment_method_type: _Optional[str] = ..., payment_method_options: _Optional[_Union[PaymentMethodOptions, _Mapping]] = ..., exchange_rate: _Optional[str] = ..., status: _Optional[_Union[ChargeStatus, str]] = ..., paid: _Optional[bool] = ..., amount_captured: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., amount_refunded: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., captured: _Optional[bool] = ..., currency: _Optional[str] = ..., customer: _Optional[str] = ..., description: _Optional[str] = ..., disputed: _Optional[bool] = ..., failure_code: _Optional[str] = ..., failure_message: _Optional[str] = ..., fraud_details: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., livemode: _Optional[bool] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., payment_intent: _Optional[str] = ..., receipt_email: _Optional[str] = ..., receipt_url: _Optional[str] = ..., review: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., calculated_statement_descriptor: _Optional[str] = ...) -> None: ...

class TransactionDetails(_message.Message):
    __slots__ = ("tx_id", "source_address", "destination_address", "tx_hash", "amount", "token", "network", "asset_id", "created_at", "status", "aml_status", "aml_info", "decimals", "confirmations", "confirmations_required")
    TX_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    DESTINATION_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    TX_HASH_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    AML_STATUS_FIELD_NUMBER: _ClassVar[int]
    AML_INFO_FIELD_NUMBER: _ClassVar[int]
    DECIMALS_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATIONS_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATIONS_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    tx_id: str
    source_address: str
    destination_address: str
    tx_hash: str
    amount: str
    token: str
    network: str
    asset_id: str
    created_at: int
    status: TransactionStatus
    aml_status: _refunds_pb2.AmlStatus
    aml_info: str
    decimals: int
    confirmations: int
    confirmations_required: int
    def __init__(self, tx_id: _Optional[str] = ..., source_address: _Optional[str] = ..., destination_address: _Optional[str] = ..., tx_hash: _Optional[str] = ..., amount: _Optional[str] = ..., token: _Optional[str] = ..., network: _Optional[str] = ..., asset_id: _Optional[str] = ..., created_at: _Optional[int] = ..., status: _Optional[_Union[TransactionStatus, str]] = ..., aml_status: _Optional[_Union[_refunds_pb2.AmlStatus, str]] = ..., aml_info: _Optional[str] = ..., decimals: _Optional[int] = ..., confirmations: _Optional[int] = ..., confirmations_required: _Optional[int] = ...) -> None: ...

class UnexpectedFunds(_message.Message):
    __slots__ = ("asset_id", "amount", "tx_hash", "tx_id", "charge", "network", "source_address", "status", "aml_status", "created_at")
    ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TX_HASH_FIELD_NUMBER: _ClassVar[int]
    TX_ID_FIELD_NUMBER: _ClassVar[int]
    CHARGE_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    SOURCE_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    AML_STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    asset_id: str
    amount: str
    tx_hash: str
    tx_id: str
    charge: str
    network: str
    source_address: str
    status: TransactionStatus
    aml_status: _refunds_pb2.AmlStatus
    created_at: int
    def __init__(self, asset_id: _Optional[str] = ..., amount: _Optional[str] = ..., tx_hash: _Optional[str] = ..., tx_id: _Optional[str] = ..., charge: _Optional[str] = ..., network: _Optional[str] = ..., source_address: _Optional[str] = ..., status: _Optional[_Union[TransactionStatus, str]] = ..., aml_status: _Optional[_Union[_refunds_pb2.AmlStatus, str]] = ..., created_at: _Optional[int] = ...) -> None: ...

class UnfreezeWithdraw(_message.Message):
    __slots__ = ("amount", "tx_id", "destination_address", "tx_hash", "status", "reason", "created_at")
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TX_ID_FIELD_NUMBER: _ClassVar[int]
    DESTINATION_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    TX_HASH_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    amount: _money_pb2.AssetAmount
    tx_id: str
    destination_address: str
    tx_hash: str
    status: UnfreezeWithdrawStatus
    reason: str
    created_at: int
    def __init__(self, amount: _Optional[_Union[_money_pb2.AssetAmount, _Mapping]] = ..., tx_id: _Optional[str] = ..., destination_address: _Optional[str] = ..., tx_hash: _Optional[str] = ..., status: _Optional[_Union[UnfreezeWithdrawStatus, str]] = ..., reason: _Optional[str] = ..., created_at: _Optional[int] = ...) -> None: ...

class PaymentLinkDetails(_message.Message):
    __slots__ = ("merchant_id", "merchant_name", "payment_link")
    MERCHANT_ID_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_NAME_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_LINK_FIELD_NUMBER: _ClassVar[int]
    merchant_id: str
    merchant_name: str
    payment_link: IntentPaymentLink
    def __init__(self, merchant_id: _Optional[str] = ..., merchant_name: _Optional[str] = ..., payment_link: _Optional[_Union[IntentPaymentLink, _Mapping]] = ...) -> None: ...

class IntentPaymentLink(_message.Message):
    __slots__ = ("id", "product", "product_items", "total_price")
    ID_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_ITEMS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PRICE_FIELD_NUMBER: _ClassVar[int]
    id: str
    product: _payment_links_pb2.PaymentLinkProduct
    product_items: _containers.RepeatedCompositeFieldContainer[IntentLinkProductItem]
    total_price: _money_pb2.Price
    def __init__(self, id: _Optional[str] = ..., product: _Optional[_Union[_payment_links_pb2.PaymentLinkProduct, _Mapping]] = ..., product_items: _Optional[_Iterable[_Union[IntentLinkProductItem, _Mapping]]] = ..., total_price: _Optional[_Union[_money_pb2.Price, _Mapping]] = ...) -> None: ...

class IntentLinkProductItem(_message.Message):
    __slots__ = ("variant_id", "variant_title", "quantity", "price", "selling_plan_id", "is_primary")
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_TITLE_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    IS_PRIMARY_FIELD_NUMBER: _ClassVar[int]
    variant_id: str
    variant_title: str
    quantity: int
    price: _money_pb2.Price
    selling_plan_id: str
    is_primary: bool
    def __init__(self, variant_id: _Optional[str] = ..., variant_title: _Optional[str] = ..., quantity: _Optional[int] = ..., price: _Optional[_Union[_money_pb2.Price, _Mapping]] = ..., selling_plan_id: _Optional[str] = ..., is_primary: _Optional[bool] = ...) -> None: ...

class PrimaryVariantSelection(_message.Message):
    __slots__ = ("quantity", "variant_id", "selling_plan_id")
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    SELLING_PLAN_ID_FIELD_NUMBER: _ClassVar[int]
    quantity: int
    variant_id: str
    selling_plan_id: str
    def __init__(self, quantity: _Optional[int] = ..., variant_id: _Optional[str] = ..., selling_plan_id: _Optional[str] = ...) -> None: ...

class AddonSelection(_message.Message):
    __slots__ = ("variant_id", "quantity")
    VARIANT_ID_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    variant_id: str
    quantity: int
    def __init__(self, variant_id: _Optional[str] = ..., quantity: _Optional[int] = ...) -> None: ...

class CreatePaymentIntentRequest(_message.Message):
    __slots__ = ("amount", "currency", "customer", "description", "metadata", "merchant_order_id", "payment_method_type", "expires_in", "complete_on_first_payment", "permanent_deposit", "permanent_deposit_asset_id", "payment_link_id", "primary_variant", "addons", "product_version", "shipping_address", "receipt_email", "return_url")
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ORDER_ID_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_TYPE_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_ON_FIRST_PAYMENT_FIELD_NUMBER: _ClassVar[int]
    PERMANENT_DEPOSIT_FIELD_NUMBER: _ClassVar[int]
    PERMANENT_DEPOSIT_ASSET_ID_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_LINK_ID_FIELD_NUMBER: _ClassVar[int]
    PRIMARY_VARIANT_FIELD_NUMBER: _ClassVar[int]
    ADDONS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_VERSION_FIELD_NUMBER: _ClassVar[int]
    SHIPPING_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_EMAIL_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    amount: str
    currency: str
    customer: str
    description: str
    metadata: _struct_pb2.Struct
    merchant_order_id: str
    payment_method_type: str
    expires_in: int
    complete_on_first_payment: bool
    permanent_deposit: bool
    permanent_deposit_asset_id: str
    payment_link_id: str
    primary_variant: PrimaryVariantSelection
    addons: _containers.RepeatedCompositeFieldContainer[AddonSelection]
    product_version: int
    shipping_address: _money_pb2.Address
    receipt_email: str
    return_url: str
    def __init__(self, amount: _Optional[str] = ..., currency: _Optional[str] = ..., customer: _Optional[str] = ..., description: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., merchant_order_id: _Optional[str] = ..., payment_method_type: _Optional[str] = ..., expires_in: _Optional[int] = ..., complete_on_first_payment: _Optional[bool] = ..., permanent_deposit: _Optional[bool] = ..., permanent_deposit_asset_id: _Optional[str] = ..., payment_link_id: _Optional[str] = ..., primary_variant: _Optional[_Union[PrimaryVariantSelection, _Mapping]] = ..., addons: _Optional[_Iterable[_Union[AddonSelection, _Mapping]]] = ..., product_version: _Optional[int] = ..., shipping_address: _Optional[_Union[_money_pb2.Address, _Mapping]] = ..., receipt_email: _Optional[str] = ..., return_url: _Optional[str] = ...) -> None: ...

class CreatePaymentIntentResponse(_message.Message):
    __slots__ = ("payment_intent",)
    PAYMENT_INTENT_FIELD_NUMBER: _ClassVar[int]
    payment_intent: PaymentIntent
    def __init__(self, payment_intent: _Optional[_Union[PaymentIntent, _Mapping]] = ...) -> None: ...

class ListPaymentIntentsRequest(_message.Message):
    __slots__ = ("page", "page_size", "customer", "customer_email", "merchant_order_id", "expand")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    CUSTOMER_EMAIL_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ORDER_ID_FIELD_NUMBER: _ClassVar[int]
    EXPAND_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    customer: str
    customer_email: str
    merchant_order_id: str
    expand: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., customer: _Optional[str] = ..., customer_email: _Optional[str] = ..., merchant_order_id: _Optional[str] = ..., expand: _Optional[_Iterable[str]] = ...) -> None: ...

class ListPaymentIntentsResponse(_message.Message):
    __slots__ = ("payment_intents", "total", "page", "page_size")
    PAYMENT_INTENTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    payment_intents: _containers.RepeatedCompositeFieldContainer[PaymentIntent]
    total: int
    page: int
    page_size: int
    def __init__(self, payment_intents: _Optional[_Iterable[_Union[PaymentIntent, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class GetPaymentIntentRequest(_message.Message):
    __slots__ = ("id", "expand")
    ID_FIELD_NUMBER: _ClassVar[int]
    EXPAND_FIELD_NUMBER: _ClassVar[int]
    id: str
    expand: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., expand: _Optional[_Iterable[str]] = ...) -> None: ...

class GetPaymentIntentResponse(_message.Message):
    __slots__ = ("payment_intent",)
    PAYMENT_INTENT_FIELD_NUMBER: _ClassVar[int]
    payment_intent: PaymentIntent
    def __init__(self, payment_intent: _Optional[_Union[PaymentIntent, _Mapping]] = ...) -> None: ...

class UpdatePaymentIntentRequest(_message.Message):
    __slots__ = ("id", "payment_method_type", "payment_method_options")
    ID_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_TYPE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    payment_method_type: str
    payment_method_options: PaymentMethodOptionsInput
    def __init__(self, id: _Optional[str] = ..., payment_method_type: _Optional[str] = ..., payment_method_options: _Optional[_Union[PaymentMethodOptionsInput, _Mapping]] = ...) -> None: ...

class UpdatePaymentIntentResponse(_message.Message):
    __slots__ = ("payment_intents", "total", "page", "page_size", "payment_intent")
    PAYMENT_INTENTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_INTENT_FIELD_NUMBER: _ClassVar[int]
    payment_intents: _containers.RepeatedCompositeFieldContainer[PaymentIntent]
    total: int
    page: int
    page_size: int
    payment_intent: PaymentIntent
    def __init__(self, payment_intents: _Optional[_Iterable[_Union[PaymentIntent, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ..., payment_intent: _Optional[_Union[PaymentIntent, _Mapping]] = ...) -> None: ...

class CancelPaymentIntentRequest(_message.Message):
    __slots__ = ("id", "reason")
    ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    id: str
    reason: str
    def __init__(self, id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class CancelPaymentIntentResponse(_message.Message):
    __slots__ = ("payment_intent",)
    PAYMENT_INTENT_FIELD_NUMBER: _ClassVar[int]
    payment_intent: PaymentIntent
    def __init__(self, payment_intent: _Optional[_Union[PaymentIntent, _Mapping]] = ...) -> None: ...

class GetCheckoutPaymentIntentRequest(_message.Message):
    __slots__ = ("id", "request", "key", "client_secret", "payment_method_type", "payment_method_options")
    ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_TYPE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    request: str
    key: str
    client_secret: str
    payment_method_type: str
    payment_method_options: PaymentMethodOptionsInput
    def __init__(self, id: _Optional[str] = ..., request: _Optional[str] = ..., key: _Optional[str] = ..., client_secret: _Optional[str] = ..., payment_method_type: _Optional[str] = ..., payment_method_options: _Optional[_Union[PaymentMethodOptionsInput, _Mapping]] = ...) -> None: ...

class GetCheckoutPaymentIntentResponse(_message.Message):
    __slots__ = ("payment_intent",)
    PAYMENT_INTENT_FIELD_NUMBER: _ClassVar[int]
    payment_intent: PaymentIntent
    def __init__(self, payment_intent: _Optional[_Union[PaymentIntent, _Mapping]] = ...) -> None: ...

class UpdateCheckoutPaymentIntentRequest(_message.Message):
    __slots__ = ("id", "request", "key", "client_secret", "payment_method_type", "payment_method_options")
    ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_TYPE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_METHOD_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    request: str
    key: str
    client_secret: str
    payment_method_type: str
    payment_method_options: PaymentMethodOptionsInput
    def __init__(self, id: _Optional[str] = ..., request: _Optional[str] = ..., key: _Optional[str] = ..., client_secret: _Optional[str] = ..., payment_method_type: _Optional[str] = ..., payment_method_options: _Optional[_Union[PaymentMethodOptionsInput, _Mapping]] = ...) -> None: ...

class UpdateCheckoutPaymentIntentResponse(_message.Message):
    __slots__ = ("payment_intent",)
    PAYMENT_INTENT_FIELD_NUMBER: _ClassVar[int]
    payment_intent: PaymentIntent
    def __init__(self, payment_intent: _Optional[_Union[PaymentIntent, _Mapping]] = ...) -> None: ...
