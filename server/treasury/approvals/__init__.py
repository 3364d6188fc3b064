"""Four eyes (DESIGN §15, §16): the approval rule, its states, trail and expiry, for payouts, refunds and addresses."""
