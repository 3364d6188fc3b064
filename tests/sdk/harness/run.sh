#!/bin/bash
# Serve paygate from /work/main (like `make run`, in a scratch dir and on its own ports), run the SDK harness
# against it, stop everything it started. Usage: run.sh [SCRATCH_DIR]   (default /tmp/sdk-run)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
MAIN=${PAYGATE_REPO:-/work/main}
P=$MAIN/.venv/bin
RUN=${1:-/tmp/sdk-run}
HTTP_PORT=${HTTP_PORT:-18600} GRPC_PORT=${GRPC_PORT:-18651} CHAIN_PORT=${CHAIN_PORT:-18645} STRIPE_PORT=${STRIPE_PORT:-8499}
GO=${GO:-/usr/lib/go-1.23/bin/go}
mkdir -p "$RUN/var/localstripe" && cd "$RUN" && rm -rf var/devchain.json var/paygate.db* var/wallet.mnemonic var/*.key var/mail
export PAYGATE_DATABASE_URL=sqlite:///$RUN/var/paygate.db
export PAYGATE_HTTP_ADDR=127.0.0.1:$HTTP_PORT PAYGATE_GRPC_ADDR=127.0.0.1:$GRPC_PORT
export PAYGATE_NETWORKS=$RUN/var/networks.dev.toml
export PAYGATE_PROVIDER_A_API_BASE=http://127.0.0.1:$STRIPE_PORT PAYGATE_WEBHOOK_ALLOW_PRIVATE=true
$P/paygate devchain --port $CHAIN_PORT --networks-file var/networks.dev.toml --block-time 2 > var/devchain.json 2> var/devchain.log & chain=$!
TMPDIR=$RUN/var/localstripe $P/localstripe --port $STRIPE_PORT --from-scratch > var/localstripe.log 2>&1 & stripe=$!
serve=
trap 'kill $serve $chain $stripe 2>/dev/null; wait $serve $chain $stripe 2>/dev/null' EXIT INT TERM
until $P/python -c "import sys,urllib.request as u; u.urlopen(sys.argv[1], timeout=1)" $PAYGATE_PROVIDER_A_API_BASE/js.stripe.com/v3/ 2>/dev/null; do
  kill -0 $stripe 2>/dev/null || { echo "localstripe failed"; cat var/localstripe.log; exit 1; }; sleep 0.3; done
until [ -s var/devchain.json ]; do kill -0 $chain 2>/dev/null || { echo "devchain failed"; cat var/devchain.log; exit 1; }; sleep 0.3; done
$P/paygate migrate > var/migrate.log 2>&1 || { cat var/migrate.log; exit 1; }
$P/paygate demo --json > var/demo.json 2> var/demo.log || { cat var/demo.log; exit 1; }
J() { $P/python -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
MID=$(J var/demo.json 'd["merchant_id"]')
$P/paygate merchants keys create --merchant "$MID" --mode test --role approver --json > var/approver.json 2>var/approver.log || { cat var/approver.log; exit 1; }
$P/paygate serve > var/serve.log 2>&1 & serve=$!
until curl -s -o /dev/null http://127.0.0.1:$HTTP_PORT/v1/assets/all; do kill -0 $serve 2>/dev/null || { cat var/serve.log; exit 1; }; sleep 0.3; done
echo "# paygate from $MAIN at $(git -C "$MAIN" rev-parse --short HEAD) ($(git -C "$MAIN" status --porcelain | wc -l) changed files), serving on $PAYGATE_HTTP_ADDR"
cd "$HERE" && GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GOPATH=${GOPATH:-/tmp/sdk-gopath} $GO build -o "$RUN/harness" . || exit 1
cd "$RUN"
PAYGATE_URL=http://127.0.0.1:$HTTP_PORT PAYGATE_KEY=$(J var/demo.json 'd["test"]["secret_key"]') \
PAYGATE_APPROVER_KEY=$(J var/approver.json 'd.get("secret_key") or d.get("key") or d') \
TREASURY_ADDRESS=$(J var/demo.json 'd["test"]["treasury_address"]') \
DEVCHAIN_JSON=$RUN/var/devchain.json CHAIN_PY=$HERE/chain.py PYTHON=$P/python ./harness
