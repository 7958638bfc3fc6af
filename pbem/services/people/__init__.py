"""People: accounts and identities, the foundation every other service builds on."""
