from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WebhookEndpoint(_message.Message):
    __slots__ = ("id", "object", "url", "enabled_events", "description", "disabled", "secret", "api_version", "livemode", "created", "updated", "previous_secret_expires_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    ENABLED_EVENTS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    API_VERSION_FIELD_NUMBER: _ClassVar[int]
    LIVEMODE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_SECRET_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    object: str
    url: str
    enabled_events: _containers.RepeatedScalarFieldContainer[str]
    description: str
    disabled: bool
    secret: str
    api_version: str
    livemode: bool
    created: int
    updated: int
    previous_secret_expires_at: int
    def __init__(self, id: _Optional[str] = ..., object: _Optional[str] = ..., url: _Optional[str] = ..., enabled_events: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ..., disabled: _Optional[bool] = ..., secret: _Optional[str] = ..., api_version: _Optional[str] = ..., livemode: _Optional[bool] = ..., created: _Optional[int] = ..., updated: _Optional[int] = ..., previous_secret_expires_at: _Optional[int] = ...) -> None: ...

class CreateWebhookEndpointRequest(_message.Message):
    __slots__ = ("url", "enabled_events", "description")
    URL_FIELD_NUMBER: _ClassVar[int]
    ENABLED_EVENTS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    url: str
    enabled_events: _containers.RepeatedScalarFieldContainer[str]
    description: str
    def __init__(self, url: _Optional[str] = ..., enabled_events: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ...) -> None: ...

class CreateWebhookEndpointResponse(_message.Message):
    __slots__ = ("webhook_endpoint",)
    WEBHOOK_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    webhook_endpoint: WebhookEndpoint
    def __init__(self, webhook_endpoint: _Optional[_Union[WebhookEndpoint, _Mapping]] = ...) -> None: ...

class ListWebhookEndpointsRequest(_message.Message):
    __slots__ = ("page", "page_size")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_size: int
    def __init__(self, page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class ListWebhookEndpointsResponse(_message.Message):
    __slots__ = ("webhook_endpoints", "total", "page", "page_size")
    WEBHOOK_ENDPOINTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    webhook_endpoints: _containers.RepeatedCompositeFieldContainer[WebhookEndpoint]
    total: int
    page: int
    page_size: int
    def __init__(self, webhook_endpoints: _Optional[_Iterable[_Union[WebhookEndpoint, _Mapping]]] = ..., total: _Optional[int] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ...) -> None: ...

class GetWebhookEndpointRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GetWebhookEndpointResponse(_message.Message):
    __slots__ = ("webhook_endpoint",)
    WEBHOOK_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    webhook_endpoint: WebhookEndpoint
    def __init__(self, webhook_endpoint: _Optional[_Union[WebhookEndpoint, _Mapping]] = ...) -> None: ...

class UpdateWebhookEndpointRequest(_message.Message):
    __slots__ = ("id", "url", "enabled_events", "disabled", "description")
    ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    ENABLED_EVENTS_FIELD_NUMBER: _ClassVar[int]
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    id: str
    url: str
    enabled_events: _containers.RepeatedScalarFieldContainer[str]
    disabled: bool
    description: str
    def __init__(self, id: _Optional[str] = ..., url: _Optional[str] = ..., enabled_events: _Optional[_Iterable[str]] = ..., disabled: _Optional[bool] = ..., description: _Optional[str] = ...) -> None: ...

class UpdateWebhookEndpointResponse(_message.Message):
    __slots__ = ("webhook_endpoint",)
    WEBHOOK_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    webhook_endpoint: WebhookEndpoint
    def __init__(self, webhook_endpoint: _Optional[_Union[WebhookEndpoint, _Mapping]] = ...) -> None: ...

class DeleteWebhookEndpointRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteWebhookEndpointResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RotateWebhookEndpointSecretRequest(_message.Message):
    __slots__ = ("id", "expires_in")
    ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_FIELD_NUMBER: _ClassVar[int]
    id: str
    expires_in: int
    def __init__(self, id: _Optional[str] = ..., expires_in: _Optional[int] = ...) -> None: ...

class RotateWebhookEndpointSecretResponse(_message.Message):
    __slots__ = ("webhook_endpoint",)
    WEBHOOK_ENDPOINT_FIELD_NUMBER: _ClassVar[int]
    webhook_endpoint: WebhookEndpoint
    def __init__(self, webhook_endpoint: _Optional[_Union[WebhookEndpoint, _Mapping]] = ...) -> None: ...
