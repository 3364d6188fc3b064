from __future__ import annotations

import grpc
from paygate.v1 import provider_webhooks_pb2 as pb
from paygate.v1 import provider_webhooks_pb2_grpc

from server.cards import outcome
from server.errors import invalid
from server.payment_intents.env import Env
from server.runtime import Runtime

MAX_PAYLOAD_BYTES = 512 * 1024


class ProviderWebhookServicer(provider_webhooks_pb2_grpc.ProviderWebhookServiceServicer):
    def __init__(self, rt: Runtime) -> None:
        self._rt = rt
        self._env: Env = rt  # the part of the runtime payments read
        self._cards = rt.cards

    async def ReceiveProviderWebhook(self, request: pb.ReceiveProviderWebhookRequest,
                                     context: grpc.aio.ServicerContext) -> pb.ReceiveProviderWebhookResponse:
        if len(request.payload) > MAX_PAYLOAD_BYTES:
            raise invalid("body", f"larger than {MAX_PAYLOAD_BYTES} bytes")
        await outcome.webhook(self._rt.db, self._env, self._cards, request.provider.strip(),
                              request.merchant_id.strip(), request.payload, request.headers)
        return pb.ReceiveProviderWebhookResponse(received=True)
