"""What the hosted checkout page needs of the server: the link's public view, one-time codes, starting a payment."""
