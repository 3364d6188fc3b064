"""`paygate`: the operator's command line.

    paygate migrate                              bring the database schema to the newest revision
    paygate merchants create --name N [--json]   a merchant with test and live keys (secrets shown once)
    paygate merchants set-card-provider --merchant M --mode test|live --secret-key SK --publishable-key PK
            [--webhook-secret WHSEC] [--provider provider_a]
                                                 the merchant's card provider keys (secrets sealed at rest)
    paygate merchants keys create --merchant M --mode test|live --role approver [--json]
                                                 a secret key that may only approve or reject payouts
    paygate merchants keys list --merchant M [--json]
                                                 every key: mode, kind, role, hint, expiry, revocation
    paygate merchants keys revoke --merchant M --key KEY_ID [--json]
                                                 the key stops working at once
    paygate merchants keys roll --merchant M --key KEY_ID [--grace-seconds N] [--json]
                                                 a new key of the same mode, kind and role (shown once); the old
                                                 one keeps working N s (default 86400, 0: stops at once)
    paygate merchants set-approval --merchant M [--mode test|live] --approvals N [--threshold AMOUNT]
                                                 payouts above AMOUNT need N approver keys' approvals in the mode
                                                 (both when left out); 0 in live mode warns; each choice is kept
    paygate merchants set-settlement-currency --merchant M --currency CODE
                                                 the fiat of the balance's totals (a fiat of the catalogue; USD
                                                 by default)
    paygate serve [--only http|grpc|scheduler] [--workers N]
                                                 run the service (all three parts by default), in N processes
                                                 sharing the ports (SO_REUSEPORT; README "Using every core")
    paygate demo [--json]                        seed a demo merchant, product and payment link
    paygate refunds unexpected --intent pi_… --asset ASSET [--amount A] [--address 0x…]
                                                 send back an intent's unexpected funds in ASSET (DESIGN §14);
                                                 all that is left by default, to the sender by default
    paygate treasury reconcile [--json]          on-chain holdings of treasuries and deposit addresses against the
                                                 ledger, per asset: ledger, chain, drift (exit status 3 on drift)
    paygate treasury backfill-ledger [--json]    opening ledger entries for payments and refunds from before the
                                                 ledger (an upgraded database); a second run posts nothing
    paygate treasury record-funding --network N --tx HASH [--json]
                                                 funds sent to a treasury by hand (e.g. gas) posted as the
                                                 merchant's available money; a second run posts nothing
    paygate devchain [--port 8545] [--networks-file PATH] [--block-time S] [--families evm,utxo]
                                                 local test chains (until Ctrl-C): Anvil with test USDT/USDC
                                                 and litecoind -regtest with a funded `payer` wallet

A bad configuration or an unreachable database stops with one line on stderr and exit status 2 or 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from server.boot.startup import Stop, database, ensure_schema, migrate_schema, runtime
from server.config import DEFAULT_NETWORKS_FILE, ConfigError, Settings, load_settings

if TYPE_CHECKING:
    from server.clock import Clock


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="paygate", description="paygate merchant payment gateway")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("migrate", help="bring the database schema to the newest revision")
    merchants = sub.add_parser("merchants", help="manage merchants").add_subparsers(dest="action", required=True)
    create = merchants.add_parser("create", help="create a merchant with test and live keys")
    create.add_argument("--name", required=True)
    create.add_argument("--json", action="store_true", help="print JSON")
    cards = merchants.add_parser("set-card-provider", help="set the merchant's card provider keys for one mode")
    cards.add_argument("--merchant", required=True)
    cards.add_argument("--provider", default="provider_a", help="a registered card provider (server/rails/registry.py)")
    cards.add_argument("--mode", required=True, choices=["test", "live"])
    cards.add_argument("--secret-key", required=True, help="sk_… (or - to read it from stdin)")
    cards.add_argument("--publishable-key", required=True)
    cards.add_argument("--webhook-secret", default="", help="whsec_… of the provider's webhook endpoint "
                                                           "(or - to read it from stdin)")
    keys = merchants.add_parser("keys", help="a merchant's API keys").add_subparsers(dest="keys_action",
                                                                                   required=True)
    key = keys.add_parser("create", help="a new secret key for one mode (shown once)")
    key.add_argument("--merchant", required=True)
    key.add_argument("--mode", required=True, choices=["test", "live"])
    key.add_argument("--role", required=True, choices=["approver"],
                     help="approver: may only approve or reject payouts (DESIGN §15)")
    key.add_argument("--json", action="store_true")
    _key_parsers(keys)
    approval = merchants.add_parser("set-approval", help="four eyes on payouts (DESIGN §15, §16)")
    approval.add_argument("--merchant", required=True)
    approval.add_argument("--mode", choices=["test", "live"],
                          help="the mode it applies to; both when left out")
    approval.add_argument("--approvals", type=int, required=True,
                          help="approver keys' approvals a payout needs (0: none)")
    approval.add_argument("--threshold", default="0",
                          help="only payouts taking the day's unapproved payouts above this amount of the "
                               "settlement currency (at current rates) need them; default 0")
    settlement = merchants.add_parser("set-settlement-currency",
                                      help="the fiat the balance's totals are shown in (DESIGN §15)")
    settlement.add_argument("--merchant", required=True)
    settlement.add_argument("--currency", required=True, help="a fiat code of the catalogue, e.g. EUR")
    serve = sub.add_parser("serve", help="run the service")
    serve.add_argument("--only", choices=["http", "grpc", "scheduler"], action="append",
                       help="run only this part (repeatable); default: all three in one process")
    serve.add_argument("--workers", type=int, default=1,
                       help="serving processes sharing the HTTP and gRPC ports (SO_REUSEPORT); default 1")
    serve.add_argument("--worker-process", action="store_true", help=argparse.SUPPRESS)
    demo = sub.add_parser("demo", help="seed a demo merchant, product and payment link")
    demo.add_argument("--json", action="store_true")
    refunds = sub.add_parser("refunds", help="refunds an operator makes").add_subparsers(dest="action",
                                                                                      required=True)
    unexpected = refunds.add_parser("unexpected", help="send back an intent's unexpected funds in one asset")
    unexpected.add_argument("--intent", required=True, help="the payment intent, pi_…")
    unexpected.add_argument("--asset", required=True, help="the asset that arrived, e.g. USDT-ETH-TEST")
    unexpected.add_argument("--amount", help="decimal amount in that asset (default: all that is left)")
    unexpected.add_argument("--address", help="where to send it (default: the sender of the first such transfer)")
    treasury = sub.add_parser("treasury", help="the treasury's books").add_subparsers(dest="action", required=True)
    reconcile = treasury.add_parser("reconcile", help="on-chain holdings against the ledger, per asset (drift)")
    reconcile.add_argument("--json", action="store_true")
    backfill = treasury.add_parser("backfill-ledger", help="opening entries for money from before the ledger")
    backfill.add_argument("--json", action="store_true")
    funding = treasury.add_parser("record-funding", help="post funds sent to a treasury by hand (e.g. gas)")
    funding.add_argument("--network", required=True, help="the network id, e.g. ETH-TEST")
    funding.add_argument("--tx", required=True, help="the funding transaction's hash")
    funding.add_argument("--json", action="store_true")
    devchain = sub.add_parser("devchain", help="run local test chains: Anvil with test tokens, litecoind -regtest")
    devchain.add_argument("--port", type=int, default=8545)
    devchain.add_argument("--networks-file", type=Path, default=DEFAULT_NETWORKS_FILE)
    devchain.add_argument("--block-time", type=int, default=None,
                          help="mine a block every N seconds (default: EVM one block per transaction, UTXO none)")
    devchain.add_argument("--families", default="evm,utxo", help="the chain families to run (default: evm,utxo)")
    return p


def _key_parsers(keys: Any) -> None:
    """`paygate merchants keys list|revoke|roll` (`keys`: the subparsers of `paygate merchants keys`)."""
    listing = keys.add_parser("list", help="the merchant's keys, with their expiry and revocation")
    listing.add_argument("--merchant", required=True)
    listing.add_argument("--json", action="store_true")
    revoke = keys.add_parser("revoke", help="stop a key at once")
    revoke.add_argument("--merchant", required=True)
    revoke.add_argument("--key", required=True, help="the key's id, key_… (`paygate merchants keys list`)")
    revoke.add_argument("--json", action="store_true")
    roll = keys.add_parser("roll", help="a new key in place of one (shown once); the old one works a while longer")
    roll.add_argument("--merchant", required=True)
    roll.add_argument("--key", required=True, help="the key's id, key_… (`paygate merchants keys list`)")
    roll.add_argument("--grace-seconds", type=int, default=None,
                      help="how long the old key keeps working: 0 to 604800 (7 days), default 86400 (24 h)")
    roll.add_argument("--json", action="store_true")


def main(argv: list[str] | None = None, *, clock: Clock | None = None) -> int:
    """`clock`: the runtime's clock for `serve` (the system clock when None; tests/clock.py passes its own)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "devchain":
            return _devchain(args.families, args.port, args.networks_file, args.block_time)
        settings = load_settings()
        if args.command == "migrate":
            migrate_schema(settings, announce=True)
        elif args.command == "merchants" and args.action == "set-card-provider":
            secret = sys.stdin.readline().strip() if args.secret_key == "-" else args.secret_key
            webhook = sys.stdin.readline().strip() if args.webhook_secret == "-" else args.webhook_secret
            asyncio.run(set_card_provider(settings, args.merchant, args.mode == "live", secret,
                                          args.publishable_key, webhook, provider=args.provider))
            print(f"merchant {args.merchant}: {args.provider} {args.mode} keys set "
                  f"(webhook: POST /webhooks/{args.provider}/{args.merchant})")
        elif args.command == "merchants" and args.action == "keys" and args.keys_action != "create":
            _keys_command(settings, args)
        elif args.command == "merchants" and args.action == "keys":
            made = asyncio.run(create_key(settings, args.merchant, args.mode == "live", args.role))
            print(json.dumps(made) if args.json else
                  f"{made['role']} key {made['id']} for {args.merchant} ({args.mode}): {made['secret_key']}\n"
                  "The secret key is shown once; store it now.")
        elif args.command == "merchants" and args.action == "set-approval":
            modes = [args.mode == "live"] if args.mode else [False, True]
            asyncio.run(set_approval(settings, args.merchant, args.approvals, args.threshold, modes))
            if args.approvals == 0 and True in modes:
                print(f"paygate: warning: four eyes is off for merchant {args.merchant} in live mode: one live key "
                      "alone can now pay out and refund to any address (this choice is kept in approval_settings)",
                      file=sys.stderr)
            print(f"merchant {args.merchant} ({args.mode or 'test and live'}): payouts taking a day's unapproved "
                  f"payouts above {args.threshold} (settlement currency) need {args.approvals} approval(s)")
        elif args.command == "merchants" and args.action == "set-settlement-currency":
            code = asyncio.run(set_settlement_currency(settings, args.merchant, args.currency))
            print(f"merchant {args.merchant}: balances shown in {code}")
        elif args.command == "merchants":
            _print_merchant(asyncio.run(create_merchant_record(settings, args.name)), as_json=args.json)
        elif args.command == "serve":
            from server.boot import workers
            from server.boot.serve import run

            roles = set(args.only or ["http", "grpc", "scheduler"])
            if problem := workers.check(args.workers):
                raise ConfigError(problem)
            if args.workers > 1 and not args.worker_process:
                if "grpc" in roles or "scheduler" in roles:
                    ensure_schema(settings)  # once, before the workers start
                return workers.supervise(roles, args.workers, settings.metrics_addr)
            asyncio.run(run(settings, roles, clock=clock, reuse_port=args.worker_process))
        elif args.command == "demo":
            from server.boot.demo import seed

            result = asyncio.run(seed(settings))
            print(json.dumps(result, indent=None if args.json else 2))
        elif args.command == "treasury" and args.action == "backfill-ledger":
            done = asyncio.run(backfill_ledger(settings))
            print(json.dumps(done) if args.json else
                  f"ledger backfilled: {done['transfers']} transfer(s), {done['refunds']} refund(s), "
                  f"{done['network_fees']} refund network fee(s)")
        elif args.command == "treasury" and args.action == "record-funding":
            recorded = asyncio.run(record_funding(settings, args.network, args.tx))
            print(json.dumps(recorded) if args.json else "\n".join(
                f"{r['merchant_id']} {r['asset_id']} {r['amount']} at {r['address']}: "
                + ("recorded" if r["posted"] else "already recorded") for r in recorded))
        elif args.command == "treasury":
            return print_reconciliation(asyncio.run(reconcile_treasury(settings)), as_json=args.json)
        elif args.command == "refunds":
            print(json.dumps(asyncio.run(refund_unexpected(settings, args.intent, args.asset, args.amount,
                                                           args.address))))
        return 0
    except ConfigError as e:
        print(f"paygate: configuration error: {e}", file=sys.stderr)
        return 2
    except Stop as e:
        print(f"paygate: {e}", file=sys.stderr)
        return e.status
    except KeyboardInterrupt:
        return 130


def _devchain(families: str, port: int, networks_file: Path, block_time: float | None) -> int:
    # Needs no settings or database: it only starts nodes and writes the networks file.
    from server.boot import devchains
    from server.rails.base import DevChainFailed

    try:
        chosen = devchains.parse_families(families)
    except DevChainFailed as e:
        raise Stop(f"devchain: {e}", status=2) from None  # a usage error, as a bad configuration is
    try:
        devchains.run(chosen, port, networks_file, block_time=block_time)
    except DevChainFailed as e:
        raise Stop(f"devchain: {e}") from None
    return 0


async def create_merchant_record(settings: Settings, name: str) -> dict[str, Any]:
    """The JSON of `paygate merchants create --json`: id, name, and each mode's keys."""
    from server.merchants.service import create_merchant
    from server.rails.registry import merchant_key_scheme
    from server.wallet.addresses import treasury_address
    from server.wallet.mnemonics import Keys

    if not name.strip():
        raise Stop("--name must not be empty", 2)
    ensure_schema(settings)
    db, wallet, scheme = database(settings), Keys.of(settings), merchant_key_scheme()
    try:
        async with db.transaction() as session:
            merchant, keys = await create_merchant(session, name)
            # Allocates the merchant's wallet account in each mode; live stays empty without a configured mnemonic.
            treasury = {mode: await treasury_address(session, wallet, scheme, merchant.id, mode == "live")
                        for mode in keys}
    finally:
        await db.close()
    out: dict[str, Any] = {"merchant_id": merchant.id, "name": merchant.name}
    for mode, k in keys.items():
        stored = treasury[mode]
        out[mode] = {"secret_key": k.secret_key, "public_key": k.public_key,
                     "treasury_address": scheme.display_address(stored) if stored else ""}
    return out


async def reconcile_treasury(settings: Settings) -> list[Any]:
    """`paygate treasury reconcile`: every treasury's and deposit address's holdings against the ledger."""
    from server.treasury.ledger.reconcile import reconcile

    ensure_schema(settings)
    rt = runtime(settings)
    try:
        return await reconcile(rt)
    finally:
        await rt.db.close()


async def backfill_ledger(settings: Settings) -> dict[str, int]:
    """`paygate treasury backfill-ledger`: opening entries for money that moved before the ledger existed."""
    from server.treasury.ledger.backfill import backfill

    ensure_schema(settings)
    rt = runtime(settings)
    try:
        done = await backfill(rt)
    finally:
        await rt.db.close()
    return {"transfers": done.transfers, "refunds": done.refunds, "network_fees": done.network_fees}


async def record_funding(settings: Settings, network: str, tx_hash: str) -> list[dict[str, Any]]:
    """`paygate treasury record-funding`: funds sent to a treasury by hand, posted to the merchant's available."""
    from server.payment_intents.totals import text
    from server.treasury.funding import FundingRefused, record

    ensure_schema(settings)
    rt = runtime(settings)
    try:
        done = await record(rt, network, tx_hash)
    except FundingRefused as e:
        raise Stop(str(e), 2) from None
    finally:
        await rt.db.close()
    return [{"merchant_id": f.merchant_id, "livemode": f.livemode, "network": f.network, "address": f.address,
             "asset_id": f.asset_id, "amount": text(f.amount), "cause_id": f.cause_id, "posted": f.posted}
            for f in done]


def print_reconciliation(lines: list[Any], *, as_json: bool) -> int:
    """Per asset: ledger, chain, drift; then each place that drifted. Exit status 3 when anything drifted."""
    from server.payment_intents.totals import text
    from server.treasury.ledger.reconcile import per_asset

    totals = per_asset(lines)
    drifted = [x for x in lines if x.drift != 0]
    if as_json:
        print(json.dumps({
            "assets": [{"asset_id": a, "ledger": text(ledger), "chain": text(chain), "drift": text(chain - ledger)}
                       for a, (ledger, chain) in totals.items()],
            "drifted": [{"network": x.network, "address": x.address, "role": x.role, "asset_id": x.asset_id,
                         "ledger": text(x.ledger), "chain": text(x.chain), "drift": text(x.drift)}
                        for x in drifted]}))
    else:
        print(f"{'asset':<24} {'ledger':>28} {'chain':>28} {'drift':>28}")
        for a, (ledger, chain) in totals.items():
            print(f"{a:<24} {text(ledger):>28} {text(chain):>28} {text(chain - ledger):>28}")
        for x in drifted:
            print(f"drift: {x.role} {x.address} on {x.network}: {x.asset_id} ledger {text(x.ledger)} "
                  f"chain {text(x.chain)} drift {text(x.drift)}")
    return 3 if drifted else 0


async def refund_unexpected(settings: Settings, intent_id: str, asset_id: str, amount: str | None,
                            address: str | None) -> dict[str, Any]:
    """`paygate refunds unexpected`: the same refund as `POST /v1/refunds` with `asset_id`, made by the operator for
    the intent's merchant in the intent's mode; prints the refund as the API shows it. The running scheduler sends
    it."""
    from server import validate
    from server.context import Caller
    from server.errors import DomainError
    from server.events.outbox import snapshot
    from server.payment_intents.models import PaymentIntent
    from server.refunds import convert, service

    ensure_schema(settings)
    rt = runtime(settings)
    try:
        async with rt.db.read() as session:
            intent = await session.get(PaymentIntent, intent_id.strip())
        if intent is None:
            raise Stop(f"no payment intent {intent_id!r}")
        caller = Caller(merchant_id=intent.merchant_id, livemode=intent.livemode, key_kind="secret")
        try:
            value = None if amount is None else validate.amount("amount", amount, allow_zero=False)
            refund = await service.refund_unexpected(rt.db, rt, rt.rails, caller, intent.id, asset_id, value, address)
        except DomainError as e:
            raise Stop(f"{e.reason}: {e}") from None
        return snapshot(convert.to_proto(rt.catalogue, refund, []))
    finally:
        await rt.db.close()


async def set_card_provider(settings: Settings, merchant_id: str, livemode: bool, secret_key: str,
                            publishable_key: str, webhook_secret: str = "", *, provider: str = "provider_a") -> None:
    """`paygate merchants set-card-provider`: the merchant's keys at a card provider for one mode, secrets
    sealed."""
    from server.cards.accounts import set_keys
    from server.errors import DomainError
    from server.merchants.models import Merchant
    from server.rails.registry import card_rails
    from server.sealing import SecretBox

    rails = card_rails(settings)
    rail = rails.get(provider)
    if rail is None:
        raise Stop(f"--provider: no card provider {provider!r} (registered: {', '.join(sorted(rails))})", 2)
    ensure_schema(settings)
    db, box = database(settings), SecretBox(settings.encryption_key)
    try:
        async with db.transaction() as session:
            if await session.get(Merchant, merchant_id) is None:
                raise Stop(f"--merchant: no merchant {merchant_id!r}", 2)
            await set_keys(session, box, rail, merchant_id=merchant_id, livemode=livemode,
                           secret_key=secret_key, publishable_key=publishable_key, webhook_secret=webhook_secret)
    except DomainError as e:
        field, _, problem = str(e).partition(":")
        raise Stop(f"--{field.replace('_', '-')}:{problem}", 2) from None
    finally:
        await db.close()


async def create_key(settings: Settings, merchant_id: str, livemode: bool, role: str) -> dict[str, Any]:
    """`paygate merchants keys create`: a secret key with a role; the key itself is returned here only."""
    from server.merchants.models import Merchant
    from server.merchants.service import create_role_key

    ensure_schema(settings)
    db = database(settings)
    try:
        async with db.transaction() as session:
            if await session.get(Merchant, merchant_id) is None:
                raise Stop(f"--merchant: no merchant {merchant_id!r}", 2)
            row, secret = await create_role_key(session, merchant_id, livemode, role)
    finally:
        await db.close()
    return {"id": row.id, "merchant_id": merchant_id, "livemode": livemode, "role": role, "secret_key": secret}


def _keys_command(settings: Settings, args: argparse.Namespace) -> None:
    """`paygate merchants keys list|revoke|roll`: the answer as JSON with `--json`, else for a person."""
    if args.keys_action == "list":
        listed = asyncio.run(list_keys(settings, args.merchant))
        if args.json:
            print(json.dumps({"merchant_id": args.merchant, "keys": listed}))
            return
        for k in listed:
            ends = f" expires_at={k['expires_at']}" if k["expires_at"] is not None else ""
            gone = f" revoked_at={k['revoked_at']}" if k["revoked_at"] is not None else ""
            print(f"{k['id']}  {k['mode']:<4} {k['kind']:<6} {k['role'] or '-':<8} {k['hint']}…  "
                  f"{k['status']}{ends}{gone}")
    elif args.keys_action == "revoke":
        revoked = asyncio.run(revoke_key(settings, args.merchant, args.key))
        print(json.dumps(revoked) if args.json else
              f"key {revoked['id']} of {args.merchant} revoked: it is refused from now on")
    else:
        rolled = asyncio.run(roll_key(settings, args.merchant, args.key, args.grace_seconds))
        new = rolled.get("secret_key") or rolled["public_key"]
        print(json.dumps(rolled) if args.json else
              f"new {rolled['kind']} key {rolled['id']} for {args.merchant} ({_MODE[rolled['livemode']]}): {new}\n"
              f"key {rolled['rolled_key_id']} works until {rolled['rolled_key_expires_at']} (Unix time), then is "
              "refused." + ("\nThe secret key is shown once; store it now." if rolled["kind"] == "secret" else ""))


_MODE = {False: "test", True: "live"}


def _key_row(key: Any, now: int) -> dict[str, Any]:
    from server.merchants.service import status

    return {"id": key.id, "mode": _MODE[key.livemode], "livemode": key.livemode, "kind": key.kind,
            "role": key.role, "hint": key.hint, "created": key.created, "expires_at": key.expires_at,
            "revoked_at": key.revoked_at, "status": status(key, now)}


async def _merchant_keys_change(settings: Settings, merchant_id: str, change: Any) -> Any:
    """Runs `change(session)` in one transaction for an existing merchant; a refused change (`parameter_invalid`
    naming its field) stops with that field as the option it came from, nothing written."""
    from server.errors import InvalidArgument
    from server.merchants.models import Merchant

    ensure_schema(settings)
    db = database(settings)
    try:
        async with db.transaction() as session:
            if await session.get(Merchant, merchant_id) is None:
                raise Stop(f"--merchant: no merchant {merchant_id!r}", 2)
            return await change(session)
    except InvalidArgument as e:
        field, _, problem = str(e).partition(":")
        raise Stop(f"--{field.replace('_', '-')}:{problem}", 2) from None
    finally:
        await db.close()


async def list_keys(settings: Settings, merchant_id: str) -> list[dict[str, Any]]:
    """`paygate merchants keys list`: every key of the merchant, oldest first; secret keys by their hint only."""
    from server.clock import now_of
    from server.merchants.service import all_keys

    async def change(session: Any) -> list[dict[str, Any]]:
        now = now_of(session)
        return [_key_row(k, now) for k in await all_keys(session, merchant_id)]

    return await _merchant_keys_change(settings, merchant_id, change)


async def revoke_key(settings: Settings, merchant_id: str, key_id: str) -> dict[str, Any]:
    """`paygate merchants keys revoke`: the key is refused from the next call on, in every process."""
    from server.clock import now_of
    from server.merchants import service

    async def change(session: Any) -> dict[str, Any]:
        key = await service.revoke_key(session, merchant_id, key_id)
        return {**_key_row(key, now_of(session)), "merchant_id": merchant_id}

    return await _merchant_keys_change(settings, merchant_id, change)


async def roll_key(settings: Settings, merchant_id: str, key_id: str, grace_seconds: int | None) -> dict[str, Any]:
    """`paygate merchants keys roll`: the new key (returned here only) and when the old one stops."""
    from server.merchants import service

    grace = service.ROLL_GRACE_SECONDS if grace_seconds is None else grace_seconds

    async def change(session: Any) -> dict[str, Any]:
        new, value, old = await service.roll_key(session, merchant_id, key_id, grace)
        return {"id": new.id, "merchant_id": merchant_id, "livemode": new.livemode, "kind": new.kind,
                "role": new.role, f"{new.kind}_key": value, "rolled_key_id": old.id,
                "rolled_key_expires_at": old.expires_at}

    return await _merchant_keys_change(settings, merchant_id, change)


async def set_settlement_currency(settings: Settings, merchant_id: str, code: str) -> str:
    """`paygate merchants set-settlement-currency`: the fiat of `GET /v1/stats/balance`'s totals (DESIGN §15)."""
    from server.catalogue.catalogue import CatalogueError, load
    from server.merchants.models import Merchant

    ensure_schema(settings)
    try:
        catalogue = load(settings.networks_file, settings.providers)
    except CatalogueError as e:
        raise Stop(str(e), 2) from None
    db = database(settings)
    try:
        currency = catalogue.currency(code.strip().upper())
        if currency is None or not currency.is_fiat:
            known = ", ".join(sorted(a.id for a in catalogue.assets if a.is_fiat))
            raise Stop(f"--currency: {code!r} is not a fiat currency of the catalogue ({known})", 2)
        async with db.transaction() as session:
            merchant = await session.get(Merchant, merchant_id, with_for_update=True)
            if merchant is None:
                raise Stop(f"--merchant: no merchant {merchant_id!r}", 2)
            merchant.settlement_currency = currency.id
            session.add(merchant)
        return currency.id
    finally:
        await db.close()


async def set_approval(settings: Settings, merchant_id: str, approvals: int, threshold: str,
                       modes: list[bool]) -> None:
    """`paygate merchants set-approval`: how many approvals a payout above the threshold needs in each of `modes`
    (livemode values; DESIGN §15, §16), appended to the choices on record: the newest is in force."""
    from decimal import Decimal, InvalidOperation

    from server.ids import new_id
    from server.merchants.models import APPROVALS_ACTOR_CLI, ApprovalSetting, Merchant

    try:
        amount = Decimal(threshold)
    except InvalidOperation:
        raise Stop("--threshold: not a decimal amount", 2) from None
    if not amount.is_finite() or amount < 0:
        raise Stop("--threshold: must be 0 or more", 2)
    if not 0 <= approvals <= 10:
        raise Stop("--approvals: must be 0 to 10", 2)
    ensure_schema(settings)
    db = database(settings)
    try:
        async with db.transaction() as session:
            merchant = await session.get(Merchant, merchant_id, with_for_update=True)
            if merchant is None:
                raise Stop(f"--merchant: no merchant {merchant_id!r}", 2)
            for livemode in modes:
                session.add(ApprovalSetting(id=new_id("aps"), merchant_id=merchant_id, livemode=livemode,
                                            approvals_required=approvals, threshold=amount,
                                            actor=APPROVALS_ACTOR_CLI, created=db.clock.now()))
    finally:
        await db.close()


def _print_merchant(info: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(info))
        return
    print(f"merchant {info['merchant_id']} ({info['name']})")
    for mode in ("test", "live"):
        print(f"  {mode}: secret key {info[mode]['secret_key']}  public key {info[mode]['public_key']}")
    print("The secret keys are shown only now; store them safely.")


if __name__ == "__main__":
    # `python -m server.boot.cli` runs this file as __main__; the modules it starts import `server.boot.cli`, a second
    # copy whose exceptions this copy's `main` would not catch. So the command runs in that one.
    from server.boot.cli import main as imported_main

    sys.exit(imported_main())
