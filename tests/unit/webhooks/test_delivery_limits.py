"""The limits that keep one slow endpoint from stalling the others or being sent twice."""

import asyncio
import math

import pytest

from server.config import ConfigError, load_settings
from server.webhooks import delivery
from server.webhooks.attempts import Attempt, Sender

IN_FLIGHT_PER_ENDPOINT = 8  # README "Webhooks": at most 8 attempts per endpoint are in flight at once


@pytest.mark.parametrize("timeout", [0.5, 10.0, 60.0])
def test_a_claim_outlives_the_worst_batch(timeout):
    worst = math.ceil(delivery.ENDPOINT_BACKLOG / delivery.PER_ENDPOINT_CONCURRENCY) * timeout
    assert delivery.lease_seconds(timeout) > worst


def test_private_targets_are_refused_unless_the_operator_allows_them():
    assert load_settings({}).webhooks.allow_private_targets is False
    assert load_settings({"PAYGATE_WEBHOOK_ALLOW_PRIVATE": "true"}).webhooks.allow_private_targets is True


def test_the_attempt_deadline_is_configurable_and_bounded():
    assert load_settings({}).webhooks.timeout_seconds == 10.0
    assert load_settings({"PAYGATE_WEBHOOK_TIMEOUT_SECONDS": "2.5"}).webhooks.timeout_seconds == 2.5
    with pytest.raises(ConfigError, match="timeout_seconds"):
        load_settings({"PAYGATE_WEBHOOK_TIMEOUT_SECONDS": "0"})


def test_a_bad_allow_private_value_is_a_one_line_error():
    with pytest.raises(ConfigError, match="allow_private_targets"):
        load_settings({"PAYGATE_WEBHOOK_ALLOW_PRIVATE": "maybe"})


class HeldReceiver:
    """A keep-alive receiver that answers nothing until released: what it holds is what the sender has in flight."""

    def __init__(self) -> None:
        self.arrived = 0
        self.release = asyncio.Event()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while head := await reader.readuntil(b"\r\n\r\n"):
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:"))
                await reader.readexactly(length)
                self.arrived += 1
                await self.release.wait()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


async def most_in_flight(attempts: int) -> tuple[int, int]:
    """(requests the receiver held at once, requests answered in the end) for `attempts` sent to one endpoint at
    once by the sender the delivery run builds (its default limits)."""
    receiver = HeldReceiver()
    server = await asyncio.start_server(receiver.serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    sender = Sender(allow_private=True)
    sends = [asyncio.ensure_future(sender.send(Attempt(
        delivery_id=f"dlv_{n}", event_id=f"evt_{n}", endpoint_id="we_1", attempt=1,
        url=f"http://127.0.0.1:{port}/hook", secrets=("whsec_test",), body=b"{}"), lambda: 0)) for n in range(attempts)]
    try:
        seen, quiet = -1, 0
        while quiet < 10:  # a second with nothing more arriving: the sender holds back the rest
            await asyncio.sleep(0.1)
            seen, quiet = receiver.arrived, quiet + 1 if receiver.arrived == seen else 0
        held = receiver.arrived
        receiver.release.set()
        outcomes = await asyncio.gather(*sends)
    finally:
        await sender.aclose()
        await asyncio.sleep(0.1)  # the receiver's handlers read the closed connections' EOF and end
        server.close()
        await server.wait_closed()
    return held, sum(o.ok for o in outcomes)


def test_at_most_8_attempts_per_endpoint_are_in_flight_at_once():
    assert asyncio.run(most_in_flight(3 * IN_FLIGHT_PER_ENDPOINT)) == (IN_FLIGHT_PER_ENDPOINT,
                                                                       3 * IN_FLIGHT_PER_ENDPOINT)
