"""`paygate`: the operator's command line.

    paygate migrate                              bring the database schema to the newest revision
    paygate merchants create --name N [--json]   a merchant with test and live keys (secrets shown once)
    paygate serve [--only http|grpc|scheduler]   run the service (all three parts by default)
    paygate demo [--json]                        seed a demo merchant, product and payment link
    paygate devchain [--port 8545] [--networks-file PATH]
                                                 a local Anvil chain with test USDT/USDC (until Ctrl-C)

A bad configuration or an unreachable database stops with one line on stderr and exit status 2 or 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from server.config import DEFAULT_NETWORKS_FILE, ConfigError, Settings, load_settings


class Stop(Exception):
    """Ends the command with one line for the operator and an exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="paygate", description="paygate merchant payment gateway")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("migrate", help="bring the database schema to the newest revision")
    merchants = sub.add_parser("merchants", help="manage merchants").add_subparsers(dest="action", required=True)
    create = merchants.add_parser("create", help="create a merchant with test and live keys")
    create.add_argument("--name", required=True)
    create.add_argument("--json", action="store_true", help="print JSON")
    serve = sub.add_parser("serve", help="run the service")
    serve.add_argument("--only", choices=["http", "grpc", "scheduler"], action="append",
                       help="run only this part (repeatable); default: all three in one process")
    demo = sub.add_parser("demo", help="seed a demo merchant, product and payment link")
    demo.add_argument("--json", action="store_true")
    devchain = sub.add_parser("devchain", help="run a local Anvil chain with test tokens")
    devchain.add_argument("--port", type=int, default=8545)
    devchain.add_argument("--networks-file", type=Path, default=DEFAULT_NETWORKS_FILE)
    devchain.add_argument("--block-time", type=int, default=None,
                          help="mine a block every N seconds (default: one block per transaction)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "devchain":
            return _devchain(args.port, args.networks_file, args.block_time)
        settings = load_settings()
        if args.command == "migrate":
            _migrate(settings, announce=True)
        elif args.command == "merchants":
            _print_merchant(asyncio.run(create_merchant_record(settings, args.name)), as_json=args.json)
        elif args.command == "serve":
            from server.serve import run

            asyncio.run(run(settings, set(args.only or ["http", "grpc", "scheduler"])))
        elif args.command == "demo":
            from server.demo import seed

            result = asyncio.run(seed(settings))
            print(json.dumps(result, indent=None if args.json else 2))
        return 0
    except ConfigError as e:
        print(f"paygate: configuration error: {e}", file=sys.stderr)
        return 2
    except Stop as e:
        print(f"paygate: {e}", file=sys.stderr)
        return e.status
    except KeyboardInterrupt:
        return 130


def _devchain(port: int, networks_file: Path, block_time: float | None) -> int:
    # Needs no settings or database: it only starts a node and writes the networks file.
    from server.rails.evm import devchain

    try:
        devchain.run(port, networks_file, block_time=block_time)
    except devchain.DevChainError as e:
        raise Stop(f"devchain: {e}") from None
    return 0


def _migrate(settings: Settings, *, announce: bool = False) -> None:
    from server.db import migrate

    try:
        migrate.upgrade(settings.database_url)
    except Exception as e:
        raise Stop(f"cannot migrate the database at {_safe(settings.database_url)}: {_reason(e)}") from None
    if announce:
        print(f"database at revision {migrate.head_revision()}")


def _safe(url: str) -> str:
    """The URL without a password."""
    scheme, _, rest = url.partition("://")
    if "@" in rest:
        creds, _, host = rest.rpartition("@")
        rest = f"{creds.split(':')[0]}:***@{host}" if ":" in creds else rest
    return f"{scheme}://{rest}"


def _reason(e: BaseException) -> str:
    text = str(getattr(e, "orig", None) or e).strip().splitlines()
    return text[0] if text else type(e).__name__


async def create_merchant_record(settings: Settings, name: str) -> dict[str, Any]:
    """The JSON of `paygate merchants create --json`: id, name, and each mode's keys."""
    from server.db import Database
    from server.merchants.service import create_merchant
    from server.wallet.addresses import treasury_address
    from server.wallet.keys import Keys

    if not name.strip():
        raise Stop("--name must not be empty", 2)
    _ensure_schema(settings)
    db = Database(settings.database_url)
    try:
        async with db.transaction() as session:
            merchant, keys = await create_merchant(session, name)
            # Allocates the merchant's wallet account in each mode; live stays empty without a configured mnemonic.
            wallet = Keys.of(settings)
            treasury = {mode: await treasury_address(session, wallet, merchant.id, mode == "live") for mode in keys}
    finally:
        await db.close()
    out: dict[str, Any] = {"merchant_id": merchant.id, "name": merchant.name}
    for mode, k in keys.items():
        out[mode] = {"secret_key": k.secret_key, "public_key": k.public_key, "treasury_address": treasury[mode] or ""}
    return out


def _ensure_schema(settings: Settings) -> None:
    """SQLite (the embedded default) is migrated on the spot; PostgreSQL must be migrated on purpose."""
    from server.db import migrate

    try:
        current = migrate.current_revision(settings.database_url)
    except Exception as e:
        raise Stop(f"cannot reach the database at {_safe(settings.database_url)}: {_reason(e)}") from None
    head = migrate.head_revision()
    if current == head:
        return
    if settings.is_sqlite:
        _migrate(settings)
        return
    raise Stop(f"the database schema is at revision {current or 'none'}, this build needs {head}: "
               "run `paygate migrate` first")


def _print_merchant(info: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(info))
        return
    print(f"merchant {info['merchant_id']} ({info['name']})")
    for mode in ("test", "live"):
        print(f"  {mode}: secret key {info[mode]['secret_key']}  public key {info[mode]['public_key']}")
    print("The secret keys are shown only now; store them safely.")


if __name__ == "__main__":
    sys.exit(main())
