from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from paygate.v1 import options_pb2 as _options_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EventDeliveryStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_DELIVERY_STATUS_UNSPECIFIED: _ClassVar[EventDeliveryStatus]
    EVENT_DELIVERY_STATUS_PENDING: _ClassVar[EventDeliveryStatus]
    EVENT_DELIVERY_STATUS_SUCCEEDED: _ClassVar[EventDeliveryStatus]
    EVENT_DELIVERY_STATUS_FAILED: _ClassVar[EventDeliveryStatus]
EVENT_DELIVERY_STATUS_UNSPECIFIED: EventDeliveryStatus
EVENT_DELIVERY_STATUS_PENDING: EventDeliveryStatus
EVENT_DELIVERY_STATUS_SUCCEEDED: EventDeliveryStatus
EVENT_DELIVERY_STATUS_FAILED: EventDeliveryStatus

class Event(_message.Message):
    __slots__ = ("id", "object", "api_version", "created", "data", "livemode", "pending_webhooks", "type")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    API_VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    PENDING_WEBHOOKS_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    api_version: str
    created: int
    data: EventData
    livemode: bool
    pending_webhooks: int
    type: str
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., api_version: _Optional[str] = ..., created: _Optional[int] = ..., data: _Optional[_Union[EventData, _Mapping]] = ..., livemode: _Optional[bool] = ..., pending_webhooks: _Optional[int] = ..., type: _Optional[str] = ...) -> None: ...

class EventData(_message.Message):
    __slots__ = ("object", "previous_attributes")
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    object: str
    previous_attributes: str
    def __init__(self, object: _Optional[str] = ..., previous_attributes: _Optional[str] = ...) -> None: ...

class EventDelivery(_message.Message):
    __slots__ = ("id", "object", "event_id", "endpoint_id", "url", "attempt", "status", "http_status", "latency_ms", "response_excerpt", "created", "next_attempt_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    HTTP_STATUS_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_EXCERPT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    event_id: str
    endpoint_id: str
    url: str
    attempt: int
    status: EventDeliveryStatus
    http_status: int
    latency_ms: int
    response_excerpt: str
    created: int
    next_attempt_at: int
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., event_id: _Optional[str] = ..., endpoint_id: _Optional[str] = ..., url: _Optional[str] = ..., attempt: _Optional[int] = ..., status: _Optional[_Union[EventDeliveryStatus, str]] = ..., http_status: _Optional[int] = ..., latency_ms: _Optional[int] = ..., response_excerpt: _Optional[str] = ..., created: _Optional[int] = ..., next_attempt_at: _Optional[int] = ...) -> None: ...

class ListEventsRequest(_message.Message):
    __slots__ = ("page", "page_size", "type", "created_gte", "created_lte")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CREATED_GTE_FIELD_NUMBER: _ClassVar[int]
    CREATED_LTE_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    type: str
    created_gte: int
    created_lte: int
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ..., type: _Optional[str] = ..., created_gte: _Optional[int] = ..., created_lte: _Optional[int] = ...) -> None: ...

class ListEventsResponse(_message.Message):
    __slots__ = ("events", "total", "page", "page_size")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    total: int
    page: int
    page_size: int
    def __init__(self, events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class GetEventRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetEventResponse(_message.Message):
    __slots__ = ("event",)
    EVENT_FIELD_NUMBER: _ClassVar[int]
    event: Event
    def __init__(self, event: _Optional[_Union[Event, _Mapping]] = ...) -> None: ...

class ResendEventRequest(_message.Message):
    __slots__ = ("id", "endpoint_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    endpoint_id: str
    def __init__(self, id: _Optional[str] = ..., endpoint_id: _Optional[str] = ...) -> None: ...

class ResendEventResponse(_message.Message):
    __slots__ = ("deliveries",)
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    deliveries: _containers.RepeatedCompositeFieldContainer[EventDelivery]
    def __init__(self, deliveries: _Optional[_Iterable[_Union[EventDelivery, _Mapping]]] = ...) -> None: ...

class ListEventDeliveriesRequest(_message.Message):
    __slots__ = ("id", "page", "page_size")
    ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    id: str
    page: int
    page_size: int
    def __init__(self, id: _Optional[str] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class ListEventDeliveriesResponse(_message.Message):
    __slots__ = ("deliveries", "total", "page", "page_size")
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    deliveries: _containers.RepeatedCompositeFieldContainer[EventDelivery]
    total: int
    page: int
    page_size: int
    def __init__(self, deliveries: _Optional[_Iterable[_Union[EventDelivery, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...
