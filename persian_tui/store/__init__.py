"""The only package that speaks SQL."""

from .db import DatabaseError, Store, StoreError

__all__ = ["DatabaseError", "Store", "StoreError"]
