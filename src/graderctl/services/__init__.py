"""Services: one per command. They take paths and options, return models, raise typed errors."""
