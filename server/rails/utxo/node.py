"""JSON-RPC to a Bitcoin Core-style node (litecoind, bitcoind) over HTTP: single calls and batches.

The URL carries the RPC user and password (`http://user:pass@host:port`); they travel as HTTP Basic and never appear
in a message (`Endpoint.shown`). Numbers are parsed as Decimal: the node writes amounts as JSON numbers with 8
decimals, and a float would turn 0.1 LTC into 9999999.999… litoshis.

Two outcomes besides a result:
* `ChainUnavailable` — no usable answer: refused connection, timeout, HTTP 401/403/5xx without a JSON-RPC body, a
  body that is not JSON, or an error the node gives while it cannot serve yet (warming up, a scan already running).
  The caller decides nothing and tries later.
* `RpcError` — the node answered and refused the call (`code` is Bitcoin Core's RPC error code): an answer, which the
  caller interprets (an unknown transaction, a height past the tip, a transaction the mempool rejects).

`NodeClient` is the async client the rail and the scanner use; `BlockingNode` the same calls for the dev chain and
tests, which run outside an event loop.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import httpx

from server.rails.base import ChainUnavailable
from server.tls import client_context

TIMEOUT_SECONDS = 30.0

# Bitcoin Core's RPC error codes (src/rpc/protocol.h) that callers branch on.
RPC_MISC_ERROR = -1
RPC_INVALID_PARAMETER = -8  # also "Block height out of range" and "Scan already in progress"
RPC_INVALID_ADDRESS_OR_KEY = -5  # "No such mempool or blockchain transaction", "Block not found"
RPC_VERIFY_ERROR = -25  # a missing or spent input
RPC_VERIFY_REJECTED = -26  # refused by mempool policy or consensus
RPC_VERIFY_ALREADY_IN_CHAIN = -27
RPC_IN_WARMUP = -28
RPC_CLIENT_NOT_CONNECTED = -9
RPC_CLIENT_IN_INITIAL_DOWNLOAD = -10
RPC_WALLET_NOT_FOUND = -18
RPC_METHOD_NOT_FOUND = -32601

# Errors that say "not now" rather than "no": the node is starting or busy, so nothing can be decided from them.
_TRANSIENT_CODES = frozenset({RPC_IN_WARMUP, RPC_CLIENT_NOT_CONNECTED, RPC_CLIENT_IN_INITIAL_DOWNLOAD})
_TRANSIENT_MESSAGES = ("scan already in progress",)


class NodeBusy(ChainUnavailable):
    """The node answered that it cannot serve the call yet (warming up, in initial download, a UTXO-set scan already
    running): worth a retry in a moment."""


class RpcError(Exception):
    """The node answered the call with a JSON-RPC error."""

    def __init__(self, method: str, code: int, message: str) -> None:
        super().__init__(f"{method}: {message} (code {code})")
        self.method = method
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Endpoint:
    """An RPC URL split into where to post (credentials removed), the Basic credentials, and a form for messages."""

    url: str
    auth: httpx.BasicAuth | None
    shown: str

    @classmethod
    def parse(cls, rpc_url: str, wallet: str | None = None) -> Endpoint:
        parts = urlsplit(rpc_url)
        host = parts.hostname or ""
        netloc = f"[{host}]" if ":" in host else host
        if parts.port is not None:
            netloc += f":{parts.port}"
        path = parts.path.rstrip("/")
        if wallet is not None:
            # Bitcoin Core routes wallet calls by path; a wallet name may hold any character, hence the quoting.
            path += "/wallet/" + quote(wallet, safe="")
        url = urlunsplit((parts.scheme, netloc, path or "/", "", ""))
        auth = None
        if parts.username is not None or parts.password is not None:
            auth = httpx.BasicAuth(unquote(parts.username or ""), unquote(parts.password or ""))
        return cls(url=url, auth=auth, shown=url)


def _body(method: str, params: Sequence[Any], request_id: int) -> dict[str, Any]:
    return {"jsonrpc": "1.0", "id": request_id, "method": method, "params": list(params)}


def _amount_text(value: object) -> str:
    # An amount goes as a JSON string ("0.1"): Bitcoin Core reads amounts from strings too, and a float would round.
    if isinstance(value, Decimal):
        return format(value, "f")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _encode(body: Any) -> bytes:
    return json.dumps(body, default=_amount_text).encode()


_HEADERS = {"Content-Type": "application/json"}


def _json(response: httpx.Response, endpoint: Endpoint, what: str) -> Any:
    """The decoded body of an answer, or ChainUnavailable. Bitcoin Core answers a JSON-RPC error with HTTP 500 (404 for
    an unknown method) and a JSON body, so those statuses are answers too; 401/403 (wrong credentials, a host not in
    -rpcallowip) and 503 (work queue full) come without one."""
    if response.status_code not in (200, 404, 500):
        raise ChainUnavailable(f"{endpoint.shown}: {what}: HTTP {response.status_code}")
    try:
        return json.loads(response.content, parse_float=Decimal)
    except ValueError as e:
        raise ChainUnavailable(f"{endpoint.shown}: {what}: the answer is not JSON: {e}") from e


def _result(answer: Any, method: str, endpoint: Endpoint) -> Any:
    """One call's result from its JSON-RPC answer object; RpcError for a refusal, ChainUnavailable for "not now"."""
    if not isinstance(answer, dict) or ("result" not in answer and "error" not in answer):
        raise ChainUnavailable(f"{endpoint.shown}: {method}: not a JSON-RPC answer: {answer!r:.200}")
    error = answer.get("error")
    if error is None:
        return answer.get("result")
    code = error.get("code") if isinstance(error, dict) else None
    message = str(error.get("message", "")) if isinstance(error, dict) else str(error)
    if not isinstance(code, int):
        raise ChainUnavailable(f"{endpoint.shown}: {method}: malformed error {error!r:.200}")
    if code in _TRANSIENT_CODES or any(m in message.lower() for m in _TRANSIENT_MESSAGES):
        raise NodeBusy(f"{endpoint.shown}: {method}: {message} (code {code})")
    raise RpcError(method, code, message)


def _batch_results(answers: Any, calls: Sequence[tuple[str, Sequence[Any]]],
                   endpoint: Endpoint) -> list[Any | RpcError]:
    if not isinstance(answers, list):
        # A node answers a batch it cannot parse with one error object; nothing in it can be used.
        raise ChainUnavailable(f"{endpoint.shown}: batch of {calls[0][0]}: not answered as a batch: {answers!r:.200}")
    by_id = {a.get("id"): a for a in answers if isinstance(a, dict)}
    out: list[Any | RpcError] = []
    for i, (method, _) in enumerate(calls):
        if i not in by_id:
            raise ChainUnavailable(f"{endpoint.shown}: batch of {method}: call {i} was not answered")
        try:
            out.append(_result(by_id[i], method, endpoint))
        except RpcError as e:
            out.append(e)
    return out


class NodeClient:
    """An async JSON-RPC client with its own connection pool; `close()` releases it. `for_wallet` makes a client of
    the same node routed to one of its wallets (the dev chain's payer; paygate itself needs no node wallet)."""

    def __init__(self, rpc_url: str, *, wallet: str | None = None, timeout: float = TIMEOUT_SECONDS) -> None:
        self.rpc_url = rpc_url
        self.endpoint = Endpoint.parse(rpc_url, wallet)
        self.timeout = timeout
        self._client: httpx.AsyncClient | None = None

    def for_wallet(self, wallet: str) -> NodeClient:
        return NodeClient(self.rpc_url, wallet=wallet, timeout=self.timeout)

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            # trust_env=False: the node is the operator's; a proxy from the environment is not on its path.
            self._client = httpx.AsyncClient(timeout=self.timeout, auth=self.endpoint.auth, trust_env=False,
                                             verify=client_context())
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def __aenter__(self) -> NodeClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def _post(self, body: Any, what: str, timeout: float | None) -> Any:
        try:
            response = await self._http().post(self.endpoint.url, content=_encode(body), headers=_HEADERS,
                                               timeout=timeout if timeout is not None else self.timeout)
        except httpx.HTTPError as e:
            raise ChainUnavailable(f"{self.endpoint.shown}: {what}: {type(e).__name__}: {e}") from e
        return _json(response, self.endpoint, what)

    async def call(self, method: str, *params: Any, timeout: float | None = None) -> Any:
        """One call's result. Raises RpcError (the node refused it) or ChainUnavailable."""
        return _result(await self._post(_body(method, params, 0), method, timeout), method, self.endpoint)

    async def batch(self, calls: Sequence[tuple[str, Sequence[Any]]], *,
                    timeout: float | None = None) -> list[Any | RpcError]:
        """Many calls in one HTTP request, their results in order; a call the node refused is its RpcError in the
        list (one unknown transaction does not spoil the others). No answer at all: ChainUnavailable."""
        if not calls:
            return []
        body = [_body(m, p, i) for i, (m, p) in enumerate(calls)]
        return _batch_results(await self._post(body, f"batch of {calls[0][0]}", timeout), calls, self.endpoint)


class BlockingNode:
    """The same calls without an event loop: the dev chain's start-up and miner thread, and tests driving the node."""

    def __init__(self, rpc_url: str, *, wallet: str | None = None, timeout: float = TIMEOUT_SECONDS) -> None:
        self.rpc_url = rpc_url
        self.endpoint = Endpoint.parse(rpc_url, wallet)
        self._client = httpx.Client(timeout=timeout, auth=self.endpoint.auth, trust_env=False)

    def for_wallet(self, wallet: str) -> BlockingNode:
        return BlockingNode(self.rpc_url, wallet=wallet)

    def close(self) -> None:
        self._client.close()

    def call(self, method: str, *params: Any, timeout: float | None = None) -> Any:
        try:
            response = self._client.post(self.endpoint.url, content=_encode(_body(method, params, 0)),
                                         headers=_HEADERS,
                                         timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT)
        except httpx.HTTPError as e:
            raise ChainUnavailable(f"{self.endpoint.shown}: {method}: {type(e).__name__}: {e}") from e
        return _result(_json(response, self.endpoint, method), method, self.endpoint)
