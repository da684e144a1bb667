"""Placeholder replaced by ``metricc build``."""
