"""paygate's gRPC server: domain logic, validation and storage, one package per resource."""
