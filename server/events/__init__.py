"""Events: the transactional outbox. Every state change writes its event in the same transaction as the change."""
