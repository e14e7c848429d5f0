"""Steps that decide who may do what (arriving with the authorization issue)."""
