"""Use cases. One public function = one use case = one transaction; each owns its commit."""
