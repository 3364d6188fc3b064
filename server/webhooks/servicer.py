from __future__ import annotations

import grpc
from paygate.v1 import webhook_endpoints_pb2 as pb
from paygate.v1 import webhook_endpoints_pb2_grpc

from server.context import current_caller
from server.paging import page_of
from server.runtime import Runtime
from server.webhooks import service
from server.webhooks.convert import endpoint_to_proto


class WebhookEndpointServicer(webhook_endpoints_pb2_grpc.WebhookEndpointServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self._allow_private = rt.settings.webhooks.allow_private_targets
        self._box = rt.box

    async def CreateWebhookEndpoint(self, request: pb.CreateWebhookEndpointRequest,
                                    context: grpc.aio.ServicerContext) -> pb.CreateWebhookEndpointResponse:
        caller = current_caller()
        # Checked before the transaction: in live mode it resolves the host name (network I/O).
        url = await service.checked_url(request.url, caller, allow_private=self._allow_private)
        async with self._rt.db.transaction() as session:
            row, secret = await service.create(session, caller, request, url, self._box)
        return pb.CreateWebhookEndpointResponse(webhook_endpoint=endpoint_to_proto(row, secret=secret))

    async def ListWebhookEndpoints(self, request: pb.ListWebhookEndpointsRequest,
                                   context: grpc.aio.ServicerContext) -> pb.ListWebhookEndpointsResponse:
        page = page_of(request)
        async with self._rt.db.read() as session:
            rows, total = await service.list_page(session, current_caller(), page)
        return pb.ListWebhookEndpointsResponse(webhook_endpoints=[endpoint_to_proto(r) for r in rows], total=total,
                                               page=page.page, page_size=page.size)

    async def GetWebhookEndpoint(self, request: pb.GetWebhookEndpointRequest,
                                 context: grpc.aio.ServicerContext) -> pb.GetWebhookEndpointResponse:
        async with self._rt.db.read() as session:
            row = await service.get(session, current_caller(), request.id)
        return pb.GetWebhookEndpointResponse(webhook_endpoint=endpoint_to_proto(row))

    async def UpdateWebhookEndpoint(self, request: pb.UpdateWebhookEndpointRequest,
                                    context: grpc.aio.ServicerContext) -> pb.UpdateWebhookEndpointResponse:
        caller = current_caller()
        url = None
        if request.HasField("url"):
            url = await service.checked_url(request.url, caller, allow_private=self._allow_private)
        async with self._rt.db.transaction() as session:
            row = await service.update(session, caller, request, url)
        return pb.UpdateWebhookEndpointResponse(webhook_endpoint=endpoint_to_proto(row))

    async def DeleteWebhookEndpoint(self, request: pb.DeleteWebhookEndpointRequest,
                                    context: grpc.aio.ServicerContext) -> pb.DeleteWebhookEndpointResponse:
        async with self._rt.db.transaction() as session:
            await service.delete_endpoint(session, current_caller(), request.id)
        return pb.DeleteWebhookEndpointResponse()

    async def RotateWebhookEndpointSecret(self, request: pb.RotateWebhookEndpointSecretRequest,
                                          context: grpc.aio.ServicerContext,
                                          ) -> pb.RotateWebhookEndpointSecretResponse:
        async with self._rt.db.transaction() as session:
            row, secret = await service.rotate(session, current_caller(), request, self._box)
        return pb.RotateWebhookEndpointSecretResponse(webhook_endpoint=endpoint_to_proto(row, secret=secret))
