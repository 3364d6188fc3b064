"""The composition root: what builds and starts a paygate process, and nothing else imports.

`composition` builds the Runtime and lets each package register its servicers, jobs and listeners; `grpc_server`
assembles the gRPC server from what was registered; `serve` runs gRPC, the HTTP facade and the scheduler in one
process (`workers` forks several); `cli` is the `paygate` command and `startup` the helpers its commands share;
`demo` seeds `make run`'s merchant. The rest of `server/`, the facade and the scheduler never import this package
(an import-linter contract in `make test` holds the line).
"""
