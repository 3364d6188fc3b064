"""Assembles the gRPC server: the pipeline, one servicer per resource, health checking and reflection."""

from __future__ import annotations

import asyncio
import logging

import grpc
import paygate.v1 as api
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from server.rpc.inprocess import InProcessChannel, Tee
from server.rpc.metered import Metered
from server.rpc.methods import registry
from server.rpc.pipeline import Pipeline
from server.runtime import Runtime

log = logging.getLogger("paygate.server")

HEALTH_INTERVAL_SECONDS = 5.0
MAX_MESSAGE_BYTES = 4 << 20


async def build(rt: Runtime, addr: str, credentials: grpc.ServerCredentials | None = None, *,
                reuse_port: bool = False) -> tuple[grpc.aio.Server, int, InProcessChannel]:
    """A started server, the port it listens on (`addr` may end in :0) and a channel calling the same handlers
    in-process (for the facade of this process); TLS when `credentials` are given. `reuse_port`: several processes
    listen on the same port (SO_REUSEPORT, `paygate serve --workers N`); off, a port in use is an error."""
    services = api.services()  # a service of the API no package registered answers UNIMPLEMENTED
    pipeline = Pipeline(registry(services), rt.auth, rt.db, rt.limiter, box=rt.box)
    server = grpc.aio.server(
        interceptors=[Metered(), pipeline],  # the port's request metrics around the pipeline's answer
        options=[("grpc.max_receive_message_length", MAX_MESSAGE_BYTES), ("grpc.so_reuseport", int(reuse_port))],
    )
    local = InProcessChannel([pipeline])
    both = Tee(server, local)
    for service in services:
        module = api.grpc_module(service)
        factory = rt.servicers.get(service.full_name)  # what the packages registered (server/boot/composition.py)
        servicer = factory(rt) if factory else getattr(module, f"{service.name}Servicer")()
        getattr(module, f"add_{service.name}Servicer_to_server")(servicer, both)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, both)
    if rt.settings.grpc_reflection:  # off by default in live deployments (server/config.py)
        reflection.enable_server_reflection(
            [s.full_name for s in services] + [health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                                               reflection.SERVICE_NAME], server)
    port = server.add_secure_port(addr, credentials) if credentials else server.add_insecure_port(addr)
    if port == 0:
        raise OSError(f"cannot listen for gRPC on {addr}")
    await server.start()
    asyncio.get_running_loop().create_task(_watch_database(rt, health))
    return server, port, local


async def _watch_database(rt: Runtime, health: health_aio.HealthServicer) -> None:
    """Health follows the database: SERVING while it answers, NOT_SERVING when it does not."""
    serving: bool | None = None
    while True:
        try:
            await asyncio.wait_for(rt.db.ping(), timeout=HEALTH_INTERVAL_SECONDS)
            ok = True
        except Exception as e:  # the database is down or unreachable
            ok = False
            if serving is not False:
                log.warning("database unreachable", extra={"error": str(e)})
        if ok is not serving:
            status = health_pb2.HealthCheckResponse.SERVING if ok else health_pb2.HealthCheckResponse.NOT_SERVING
            await health.set("", status)
            for service in api.services():
                await health.set(service.full_name, status)
            serving = ok
        await asyncio.sleep(HEALTH_INTERVAL_SECONDS)
