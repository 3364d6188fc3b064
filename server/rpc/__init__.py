"""The RPC pipeline every call goes through: request id, authentication, required fields, idempotency,
the servicer, and the mapping of domain errors to `google.rpc.Status`."""
