#!/usr/bin/env bash
# Generates the Python stubs next to the .proto files: proto/paygate/v1/*_pb2*.py(i).
# Usage: proto/generate.sh [OUT_DIR]   (OUT_DIR defaults to proto/, the committed location)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
out=${1:-proto}
SP=$("$PY" -c "import google.api.annotations_pb2 as m,pathlib;print(pathlib.Path(m.__file__).parents[2])")
mkdir -p "$out"
"$PY" -m grpc_tools.protoc -I proto -I "$SP" \
  --python_out="$out" --pyi_out="$out" --grpc_python_out="$out" proto/paygate/v1/*.proto
