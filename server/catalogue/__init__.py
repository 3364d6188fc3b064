"""The networks and assets paygate knows (the built-in catalogue, the operator's networks file) and whether each
network's RPC answers now. Data the rails and every domain package read; it imports nothing of theirs."""
