"""EIP-681 payment requests: the URI a wallet opens to pay a quote on an EVM network (the hosted page's QR code).

    native   ethereum:<address>@<chain_id>?value=<wei>
    token    ethereum:<contract>@<chain_id>/transfer?address=<address>&uint256=<base units>

`@<chain_id>` is left out for a network whose catalogue entry gives none (0), as the page did before the rail made
the URI. Amounts are integers of the asset's smallest unit: a wallet reads no decimals or exponents here.
"""

from __future__ import annotations

from decimal import Decimal

from server.rails.evm.transactions import normalize_address

SCHEME = "ethereum"
UINT256_MAX = 2**256 - 1
UINT256_DIGITS = len(str(UINT256_MAX))  # 78


def base_units(amount: Decimal, decimals: int) -> int:
    """`amount` whole units of an asset with `decimals` in its smallest unit, exactly; ValueError for an amount
    that pays nothing, would round, or does not fit the uint256 of a transfer.

    Integer arithmetic on the amount's digits, not `scaleb`: Decimal arithmetic rounds to the context's 28 digits,
    and a large amount of an 18-decimal coin has more."""
    if not amount.is_finite() or amount <= 0:
        raise ValueError(f"{amount!r} is not a positive amount")
    _, digits, exponent = amount.as_tuple()
    shift = int(exponent) + decimals  # a finite Decimal's exponent is an int
    coefficient = int("".join(map(str, digits)))
    # Both bounds before any 10**shift: an exponent of a billion either way is a number too large to compute.
    if len(digits) + shift > UINT256_DIGITS:
        raise ValueError(f"{amount!r} is more than a transfer can carry")
    if shift >= 0:
        units = coefficient * 10**shift
    else:
        # More places than the coefficient has digits: nonzero, so it cannot be whole in base units.
        units, rest = divmod(coefficient, 10**-shift) if -shift <= len(digits) else (0, coefficient)
        if rest:
            raise ValueError(f"{amount!r} has more than {decimals} decimals")
    if units > UINT256_MAX:
        raise ValueError(f"{amount!r} is more than a transfer can carry")
    return units


def _checked(address: str) -> str:
    # Validated as the rail validates any address (0x and 40 ASCII hex digits, a mixed case one checksummed), so
    # nothing else can ride in the URI; kept as given: the page shows the same string beside the QR code.
    normalize_address(address)
    return address


def payment_uri(address: str, chain_id: int, amount_base: int | None = None, *, contract: str = "") -> str:
    """The URI that pays `amount_base` (smallest units; None: no amount) to `address`: of the native coin, or with
    `contract`, a `transfer` of that ERC-20 token. ValueError for an address that is not one or an amount of
    nothing."""
    if amount_base is not None and amount_base <= 0:
        raise ValueError(f"{amount_base!r} is not a positive amount")
    chain = f"@{chain_id}" if chain_id else ""
    if contract:
        target = f"{SCHEME}:{_checked(contract)}{chain}/transfer?address={_checked(address)}"
        return target if amount_base is None else f"{target}&uint256={amount_base}"
    target = f"{SCHEME}:{_checked(address)}{chain}"
    return target if amount_base is None else f"{target}?value={amount_base}"
