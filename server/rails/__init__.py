"""Rails: how paygate talks to the outside world where money moves, one plug-in per kind of network.

`base.py` draws the seam as small capabilities (receive, addresses, balances, address payouts) and a chain family's
`KeyScheme` (how the wallet's seed becomes its addresses and keys); a rail implements those its network has.
`registry.py` gives each network of the catalogue (and each card provider) its rail and keys. Today every network is
EVM (`evm/`, registered through `evm/family.py`). Adding a chain family or a card provider is a new package here plus
its line in `registry.py`; the watcher, the wallet and the owners of payouts (refunds, sweeps, treasury payouts) only
ask the registry for a capability.
"""
