"""The spec's JSON wire format, shared by the core and the HTTP facade: protobuf ⇄ JSON (`codec`), the JSON text
itself (`codec.dumps`) and bounded parsing of input from outside (`json_limits`). Knows nothing of HTTP or gRPC."""
