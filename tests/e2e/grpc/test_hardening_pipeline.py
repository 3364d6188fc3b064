"""The pipeline fails closed (a method it does not know, or a streaming one, is refused; only health checking and
reflection are open), and a caller's request id is kept only when short and plain, the same rule as HTTP's."""

from __future__ import annotations

import asyncio
import secrets
import time
from pathlib import Path

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from paygate.v1 import customers_pb2 as pb
from paygate.v1 import customers_pb2_grpc

from server.db import Database
from server.db.migrate import upgrade
from server.rpc.auth import Authenticator
from server.rpc.pipeline import Pipeline
from tests.harness import TLS


def _serve_hidden_methods(tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    """A server whose pipeline knows no method of `test.Hidden`: what each call answered, and what ran."""
    url = f"sqlite:///{tmp_path / 'p.db'}"
    upgrade(url)
    ran: list[str] = []

    async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        ran.append("Echo")
        return request

    async def chat(requests, context):  # type: ignore[no-untyped-def]
        ran.append("Chat")
        async for r in requests:
            yield r

    async def scenario() -> dict[str, str]:
        db = Database(url)
        server = grpc.aio.server(interceptors=[Pipeline({}, Authenticator(db), db)])
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("test.Hidden", {
            "Echo": grpc.unary_unary_rpc_method_handler(echo),
            "Chat": grpc.stream_stream_rpc_method_handler(chat)}),))
        health_pb2_grpc.add_HealthServicer_to_server(health_aio.HealthServicer(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        answers: dict[str, str] = {}
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                try:
                    await channel.unary_unary("/test.Hidden/Echo")(b"x", timeout=10)
                    answers["Echo"] = "OK"
                except grpc.aio.AioRpcError as e:
                    answers["Echo"] = e.code().name
                try:
                    # The caller writes nothing: a request written while the server ends the call fails in the
                    # client's send, and grpc's aio client then reports INTERNAL in place of the server's status
                    # (`_StreamRequestMixin._write` → `set_internal_error`), a race of the client's, not the server's.
                    call = channel.stream_stream("/test.Hidden/Chat")(timeout=10)
                    async for _ in call:
                        pass
                    answers["Chat"] = "OK"
                except grpc.aio.AioRpcError as e:
                    answers["Chat"] = e.code().name
                health = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
                answers["Health"] = health_pb2.HealthCheckResponse.ServingStatus.Name(health.status)
        finally:
            await server.stop(None)
            await db.close()
        return answers

    return ran, asyncio.run(scenario())


def test_a_method_unknown_to_the_pipeline_is_refused_not_run(tmp_path):
    ran, answers = _serve_hidden_methods(tmp_path)
    assert answers["Echo"] == "UNIMPLEMENTED" and "Echo" not in ran


def test_a_streaming_method_is_refused_not_run(tmp_path):
    ran, answers = _serve_hidden_methods(tmp_path)
    assert answers["Chat"] == "UNIMPLEMENTED" and "Chat" not in ran


def test_health_checking_stays_open(tmp_path):
    _, answers = _serve_hidden_methods(tmp_path)
    assert answers["Health"] == "SERVING"


def _logged_request_ids(service, sent: str, channel, grpc_auth) -> bool:
    def access_lines() -> int:
        return service.log().count('"msg": "rpc"')

    stub = customers_pb2_grpc.CustomerServiceStub(channel)
    before = access_lines()
    stub.ListCustomers(pb.ListCustomersRequest(), metadata=[*grpc_auth, ("x-request-id", sent)])
    deadline = time.monotonic() + 10  # the line is written as the call ends, after the answer
    while access_lines() == before and time.monotonic() < deadline:
        time.sleep(0.05)
    return f'"request_id": "{sent}"' in service.log()


def test_a_plain_grpc_request_id_is_kept(service, channel, grpc_auth):
    assert _logged_request_ids(service, f"req-{secrets.token_hex(6)}.A_1", channel, grpc_auth)


def test_a_grpc_request_id_with_other_characters_is_replaced(service, channel, grpc_auth):
    assert not _logged_request_ids(service, f"req {secrets.token_hex(6)}<b>", channel, grpc_auth)


def test_an_overlong_grpc_request_id_is_replaced(service, channel, grpc_auth):
    assert not _logged_request_ids(service, "r" * 60 + secrets.token_hex(4), channel, grpc_auth)


def test_http_request_ids_follow_the_same_rule(service):
    kept = httpx.get(f"{service.http_url}/healthz", headers={"X-Request-Id": "abc-DEF_1.2"}, verify=TLS)
    assert kept.headers["x-request-id"] == "abc-DEF_1.2"
    for bad in ("a:b", "r" * 65):
        assert httpx.get(f"{service.http_url}/healthz", headers={"X-Request-Id": bad},
                         verify=TLS).headers["x-request-id"] != bad
