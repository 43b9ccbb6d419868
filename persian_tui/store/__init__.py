"""The only package that speaks SQL."""

from .db import DatabaseError, Store, StoreBusy, StoreError
from .runs import LeaseHeld

__all__ = ["DatabaseError", "LeaseHeld", "Store", "StoreBusy", "StoreError"]
