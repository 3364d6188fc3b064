"""The hosted checkout page (DESIGN §9): server-rendered HTML, one small script, no build step, no CDN.

`{checkout_url}/<payment_link_id>` sells a payment link; `{checkout_url}/pay/<pi_id>?client_secret=…` pays one
intent (an invoice's payment_url). The page itself only reads what it renders (GetCheckoutLink,
GetCheckoutSession); everything the shopper does goes from the script to paygate's checkout calls with the public
key and the client secret. Every response carries a Content-Security-Policy with a fresh nonce: the only scripts
that run are the page's own file (and the card provider's library, when the card step is offered).
"""

from __future__ import annotations

import io
import json
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
import segno
from jinja2 import Environment, FileSystemLoader, select_autoescape
from paygate.v1 import checkout_pb2, checkout_pb2_grpc
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from server.validate import URL_HOST
from wire import codec

log = logging.getLogger("paygate.checkout_page")
HERE = Path(__file__).parent
RPC_TIMEOUT_SECONDS = 10.0
MAX_QR_DATA = 512
# The payment URI schemes the rails make (server/rails/base.py `PaymentRequests`): EIP-681 on EVM networks, BIP-21
# on the UTXO networks (server/rails/utxo/params.py URI_SCHEMES). Lower case, as the rails write them.
QR_SCHEMES = ("ethereum", "litecoin", "bitcoin")
_templates = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]))


@dataclass(frozen=True)
class PageConfig:
    """`base_path`: the path of checkout_url on this server (e.g. `/checkout`, or `` when checkout_url is a host of
    its own). `card_js_url`: the card provider's browser library (Stripe.js, or localstripe's stand-in in tests)."""

    base_path: str = "/checkout"
    card_js_url: str = ""


def _origin(url: str) -> str:
    """scheme://host[:port] of an http(s) URL, rebuilt from its parsed host and port (never its raw text, which goes
    into a header), or '' for anything else."""
    parts = urlsplit(url)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        return ""
    if parts.scheme not in ("http", "https") or not host or not URL_HOST.fullmatch(host):
        return ""
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def _csp(nonce: str, frame_ancestors: str, card_origin: str) -> str:
    extra = f" {card_origin}" if card_origin else ""
    return "; ".join([
        "default-src 'none'",
        f"script-src 'nonce-{nonce}'{extra}",
        "style-src 'self'",
        "img-src 'self' data:",
        f"connect-src 'self'{extra}",
        f"frame-src{extra or ' ' + chr(39) + 'none' + chr(39)}",
        "form-action 'self'",
        "base-uri 'none'",
        f"frame-ancestors {frame_ancestors}",
    ])


def frame_ancestors(return_url: str, livemode: bool) -> str:
    """Who may embed the page: the merchant's own site (the origin of the return address), and in test mode any
    site, so that a merchant can try embedding from a development host."""
    if not livemode:
        return "*"
    origin = _origin(return_url)
    return f"'self' {origin}" if origin else "'self'"


class CheckoutPage:
    def __init__(self, config: PageConfig, channel: Any) -> None:
        self.config = config
        self._channel = channel  # a callable answering the gateway's channel (opened in the app's lifespan)
        self._card_origin = _origin(config.card_js_url)

    def _stub(self) -> checkout_pb2_grpc.CheckoutServiceStub:
        return checkout_pb2_grpc.CheckoutServiceStub(self._channel())

    def _render(self, template: str, status: int, *, frame: str = "'self'", **values: Any) -> HTMLResponse:
        nonce = secrets.token_urlsafe(16)
        page_config = values.pop("page_config", None)
        html = _templates.get_template(template).render(
            nonce=nonce, static=f"{self.config.base_path}/static", card_js_url=self.config.card_js_url,
            # JSON inside <script type="application/json"> is data, not code; "<" is escaped so it cannot end it.
            page_config=json.dumps(page_config).replace("<", "\\u003c") if page_config is not None else "",
            **values)
        return HTMLResponse(html, status_code=status, headers={
            "Content-Security-Policy": _csp(nonce, frame, self._card_origin),
            "X-Content-Type-Options": "nosniff",
            # The pay address carries a client secret: never send it to another site.
            "Referrer-Policy": "no-referrer",
            "Cache-Control": "no-store",
        })

    def _error(self, status: int, title: str, message: str) -> HTMLResponse:
        return self._render("error.html", status, title=title, message=message)

    async def link_page(self, request: Request) -> Response:
        link_id = request.path_params["link_id"]
        try:
            reply = await self._stub().GetCheckoutLink(checkout_pb2.GetCheckoutLinkRequest(payment_link_id=link_id),
                                                       timeout=RPC_TIMEOUT_SECONDS)
        except grpc.aio.AioRpcError as e:
            return self._rpc_failure(e)
        link = reply.link
        if not link.active:
            return self._error(410, "This offer has ended",
                               f"{link.merchant_name or 'The merchant'} no longer sells {link.product.name or 'this'} "
                               "through this page.")
        data = codec.encode(link)  # the API's own JSON: wire enum values, int64 as numbers
        return self._render("checkout.html", 200, frame=frame_ancestors(link.return_url, link.livemode),
                            title=link.product.name, merchant_name=link.merchant_name, livemode=link.livemode,
                            page_config={"mode": "link", "link": data, "api": "",
                                         "ephemeral_token": request.query_params.get("ephemeral_token", "")})

    async def pay_page(self, request: Request) -> Response:
        intent_id = request.path_params["intent_id"]
        client_secret = request.query_params.get("client_secret", "")
        if not client_secret:
            return self._error(404, "Payment not found", "This payment address is incomplete. Open the link you "
                                                         "were sent again.")
        try:
            reply = await self._stub().GetCheckoutSession(checkout_pb2.GetCheckoutSessionRequest(
                payment_intent_id=intent_id, client_secret=client_secret), timeout=RPC_TIMEOUT_SECONDS)
        except grpc.aio.AioRpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return self._error(404, "Payment not found", "This payment does not exist or its address is wrong.")
            return self._rpc_failure(e)
        return self._render("checkout.html", 200, frame=frame_ancestors(reply.return_url, reply.livemode),
                            title=f"Pay {reply.merchant_name}", merchant_name=reply.merchant_name,
                            livemode=reply.livemode,
                            page_config={"mode": "pay", "payment_intent_id": intent_id,
                                         "client_secret": client_secret, "public_key": reply.public_key,
                                         "return_url": reply.return_url, "livemode": reply.livemode,
                                         "merchant_id": reply.merchant_id, "merchant_name": reply.merchant_name,
                                         "payment_method_types": list(reply.payment_method_types)})

    def _rpc_failure(self, e: grpc.aio.AioRpcError) -> HTMLResponse:
        if e.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT):
            return self._error(404, "Page not found", "This payment page does not exist. Check the address, or ask "
                                                      "the shop for a new link.")
        if e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
            return self._error(429, "Too many requests", "Wait a moment and reload the page.")
        log.warning("checkout page failure", extra={"code": e.code().name})
        return self._error(503, "Checkout unavailable", "Payments cannot be taken right now. Try again in a minute.")

    async def qr(self, request: Request) -> Response:
        """A QR code (SVG) of a payment URI the page shows: only of the schemes the rails make (`QR_SCHEMES`), so the
        endpoint draws no other link for whoever points at it."""
        data = request.query_params.get("data", "")
        scheme, colon, rest = data.partition(":")
        if scheme not in QR_SCHEMES or not colon or not rest or len(data) > MAX_QR_DATA or not data.isascii():
            return Response(f"data: a payment URI ({', '.join(f'{s}:' for s in QR_SCHEMES)}) of at most "
                            f"{MAX_QR_DATA} characters", status_code=400, media_type="text/plain")
        out = io.BytesIO()
        segno.make(data, error="m").save(out, kind="svg", scale=4, border=2, dark="#111827", light="#ffffff",
                                          xmldecl=False)
        svg = out.getvalue()
        return Response(svg, media_type="image/svg+xml", headers={
            "Cache-Control": "private, max-age=3600", "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})


class _IdConvertor(Convertor[str]):
    """An identifier of the API (prefix, `_`, base62): a page path never swallows another route's path."""

    regex = "[a-z]{2,4}_[A-Za-z0-9]{1,64}"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("paygate_id", _IdConvertor())


def routes(page: CheckoutPage) -> list[BaseRoute]:
    """After the API's routes: with checkout_url at the root of its own host, `/<pl_…>` is the page."""
    base = page.config.base_path.rstrip("/")
    return [
        Mount(f"{base}/static", app=StaticFiles(directory=HERE / "static"), name="checkout_static"),
        Route(f"{base}/qr.svg", page.qr, methods=["GET"], name="checkout_page.qr"),
        Route(f"{base}/pay/{{intent_id:paygate_id}}", page.pay_page, methods=["GET"], name="checkout_page.pay"),
        Route(f"{base}/{{link_id:paygate_id}}", page.link_page, methods=["GET"], name="checkout_page.link"),
    ]
