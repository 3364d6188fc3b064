from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from paygate.v1 import money_pb2 as _money_pb2
from paygate.v1 import options_pb2 as _options_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class IdpKey(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    IDP_KEY_UNSPECIFIED: _ClassVar[IdpKey]
    IDP_KEY_EMAIL: _ClassVar[IdpKey]
    IDP_KEY_PHONE: _ClassVar[IdpKey]
    IDP_KEY_UUID: _ClassVar[IdpKey]
IDP_KEY_UNSPECIFIED: IdpKey
IDP_KEY_EMAIL: IdpKey
IDP_KEY_PHONE: IdpKey
IDP_KEY_UUID: IdpKey

class Customer(_message.Message):
    __slots__ = ("id", "object", "name", "email", "description", "metadata", "created", "updated", "phone", "total_expense", "total_payment", "total_refund", "currency", "uuid")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_EXPENSE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PAYMENT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_REFUND_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    UUID_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    name: str
    email: str
    description: str
    metadata: _struct_pb2.Struct
    created: int
    updated: int
    phone: str
    total_expense: str
    total_payment: str
    total_refund: str
    currency: str
    uuid: str
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., name: _Optional[str] = ..., email: _Optional[str] = ..., description: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., created: _Optional[int] = ..., updated: _Optional[int] = ..., phone: _Optional[str] = ..., total_expense: _Optional[str] = ..., total_payment: _Optional[str] = ..., total_refund: _Optional[str] = ..., currency: _Optional[str] = ..., uuid: _Optional[str] = ...) -> None: ...

class CreateCustomerRequest(_message.Message):
    __slots__ = ("name", "email", "description", "metadata", "phone", "uuid")
    NAME_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    UUID_FIELD_NUMBER: _ClassVar[int]
    name: str
    email: str
    description: str
    metadata: _struct_pb2.Struct
    phone: str
    uuid: str
    def __init__(self, name: _Optional[str] = ..., email: _Optional[str] = ..., description: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., phone: _Optional[str] = ..., uuid: _Optional[str] = ...) -> None: ...

class CreateCustomerResponse(_message.Message):
    __slots__ = ("customer",)
    CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    customer: Customer
    def __init__(self, customer: _Optional[_Union[Customer, _Mapping]] = ...) -> None: ...

class ListCustomersRequest(_message.Message):
    __slots__ = ("page", "page_size", "email")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    email: str
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., email: _Optional[str] = ...) -> None: ...

class ListCustomersResponse(_message.Message):
    __slots__ = ("customers", "total", "page", "page_size")
    CUSTOMERS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    customers: _containers.RepeatedCompositeFieldContainer[Customer]
    total: int
    page: int
    page_size: int
    def __init__(self, customers: _Optional[_Iterable[_Union[Customer, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class GetCustomerRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetCustomerResponse(_message.Message):
    __slots__ = ("customer",)
    CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    customer: Customer
    def __init__(self, customer: _Optional[_Union[Customer, _Mapping]] = ...) -> None: ...

class UpdateCustomerRequest(_message.Message):
    __slots__ = ("id", "name", "email", "description", "metadata", "phone", "uuid")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    UUID_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    email: str
    description: str
    metadata: _struct_pb2.Struct
    phone: str
    uuid: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., email: _Optional[str] = ..., description: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., phone: _Optional[str] = ..., uuid: _Optional[str] = ...) -> None: ...

class UpdateCustomerResponse(_message.Message):
    __slots__ = ("customer",)
    CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    customer: Customer
    def __init__(self, customer: _Optional[_Union[Customer, _Mapping]] = ...) -> None: ...

class DeleteCustomerRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteCustomerResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CreateEphemeralTokenRequest(_message.Message):
    __slots__ = ("idp_key", "idp_subject", "provider", "order_id", "return_url", "allow_create", "issued_by", "channel_metadata", "expires_in")
    IDP_KEY_FIELD_NUMBER: _ClassVar[int]
    IDP_SUBJECT_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    ORDER_ID_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    ALLOW_CREATE_FIELD_NUMBER: _ClassVar[int]
    ISSUED_BY_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_METADATA_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_FIELD_NUMBER: _ClassVar[int]
    idp_key: IdpKey
    idp_subject: str
    provider: str
    order_id: str
    return_url: str
    allow_create: bool
    issued_by: str
    channel_metadata: _struct_pb2.Struct
    expires_in: int
    def __init__(self, idp_key: _Optional[_Union[IdpKey, str]] = ..., idp_subject: _Optional[str] = ..., provider: _Optional[str] = ..., order_id: _Optional[str] = ..., return_url: _Optional[str] = ..., allow_create: _Optional[bool] = ..., issued_by: _Optional[str] = ..., channel_metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., expires_in: _Optional[int] = ...) -> None: ...

class CreateEphemeralTokenResponse(_message.Message):
    __slots__ = ("token", "expires_at")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    token: str
    expires_at: int
    def __init__(self, token: _Optional[str] = ..., expires_at: _Optional[int] = ...) -> None: ...

class ResolveIdentityRequest(_message.Message):
    __slots__ = ("request", "ephemeral_token", "auth_token", "email", "phone", "verification_code", "payment_link_id", "allow_create", "refresh_token")
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    EPHEMERAL_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AUTH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    VERIFICATION_CODE_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_LINK_ID_FIELD_NUMBER: _ClassVar[int]
    ALLOW_CREATE_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    request: str
    ephemeral_token: str
    auth_token: str
    email: str
    phone: str
    verification_code: str
    payment_link_id: str
    allow_create: bool
    refresh_token: bool
    def __init__(self, request: _Optional[str] = ..., ephemeral_token: _Optional[str] = ..., auth_token: _Optional[str] = ..., email: _Optional[str] = ..., phone: _Optional[str] = ..., verification_code: _Optional[str] = ..., payment_link_id: _Optional[str] = ..., allow_create: _Optional[bool] = ..., refresh_token: _Optional[bool] = ...) -> None: ...

class ResolveIdentityResponse(_message.Message):
    __slots__ = ("customer_id", "provider_a_customer_id", "email", "phone", "uuid", "addresses", "tax_regions", "auth_token", "issued_by", "provider", "order_id", "is_saved_customer", "provider_b_customer_id", "return_url")
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_A_CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PHONE_FIELD_NUMBER: _ClassVar[int]
    UUID_FIELD_NUMBER: _ClassVar[int]
    ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    TAX_REGIONS_FIELD_NUMBER: _ClassVar[int]
    AUTH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ISSUED_BY_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    ORDER_ID_FIELD_NUMBER: _ClassVar[int]
    IS_SAVED_CUSTOMER_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_B_CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    RETURN_URL_FIELD_NUMBER: _ClassVar[int]
    customer_id: str
    provider_a_customer_id: str
    email: str
    phone: str
    uuid: str
    addresses: _containers.RepeatedCompositeFieldContainer[_money_pb2.Address]
    tax_regions: _containers.RepeatedCompositeFieldContainer[TaxRegion]
    auth_token: str
    issued_by: str
    provider: str
    order_id: str
    is_saved_customer: bool
    provider_b_customer_id: str
    return_url: str
    def __init__(self, customer_id: _Optional[str] = ..., provider_a_customer_id: _Optional[str] = ..., email: _Optional[str] = ..., phone: _Optional[str] = ..., uuid: _Optional[str] = ..., addresses: _Optional[_Iterable[_Union[_money_pb2.Address, _Mapping]]] = ..., tax_regions: _Optional[_Iterable[_Union[TaxRegion, _Mapping]]] = ..., auth_token: _Optional[str] = ..., issued_by: _Optional[str] = ..., provider: _Optional[str] = ..., order_id: _Optional[str] = ..., is_saved_customer: _Optional[bool] = ..., provider_b_customer_id: _Optional[str] = ..., return_url: _Optional[str] = ...) -> None: ...

class TaxRegion(_message.Message):
    __slots__ = ("country", "state")
    COUNTRY_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    country: str
    state: str
    def __init__(self, country: _Optional[str] = ..., state: _Optional[str] = ...) -> None: ...

class SavedPaymentMethod(_message.Message):
    __slots__ = ("id", "provider", "type", "last4", "brand", "funding", "exp_month", "exp_year", "country", "fingerprint")
    ID_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LAST4_FIELD_NUMBER: _ClassVar[int]
    BRAND_FIELD_NUMBER: _ClassVar[int]
    FUNDING_FIELD_NUMBER: _ClassVar[int]
    EXP_MONTH_FIELD_NUMBER: _ClassVar[int]
    EXP_YEAR_FIELD_NUMBER: _ClassVar[int]
    COUNTRY_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    id: str
    provider: str
    type: str
    last4: str
    brand: str
    funding: str
    exp_month: int
    exp_year: int
    country: str
    fingerprint: str
    def __init__(self, id: _Optional[str] = ..., provider: _Optional[str] = ..., type: _Optional[str] = ..., last4: _Optional[str] = ..., brand: _Optional[str] = ..., funding: _Optional[str] = ..., exp_month: _Optional[int] = ..., exp_year: _Optional[int] = ..., country: _Optional[str] = ..., fingerprint: _Optional[str] = ...) -> None: ...

class ListPaymentMethodsRequest(_message.Message):
    __slots__ = ("customer_id", "key", "client_secret")
    CUSTOMER_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    customer_id: str
    key: str
    client_secret: str
    def __init__(self, customer_id: _Optional[str] = ..., key: _Optional[str] = ..., client_secret: _Optional[str] = ...) -> None: ...

class ListPaymentMethodsResponse(_message.Message):
    __slots__ = ("payment_methods",)
    PAYMENT_METHODS_FIELD_NUMBER: _ClassVar[int]
    payment_methods: _containers.RepeatedCompositeFieldContainer[SavedPaymentMethod]
    def __init__(self, payment_methods: _Optional[_Iterable[_Union[SavedPaymentMethod, _Mapping]]] = ...) -> None: ...
