"""Rails: how paygate talks to the outside world where money moves, one plug-in per kind of network.

`base.py` draws the seam as small capabilities (receive, addresses, balances, address payouts); a rail implements
those its network has. `registry.py` gives each network of the catalogue (and each card provider) its rail. Today
every network is EVM (`evm/`). Adding a chain family or a card provider is a new package here plus its line in
`registry.py`; the watcher and the owners of payouts (refunds; sweeps and treasury payouts next) only ask the
registry for a capability.
"""
