"""The only package that speaks SQL."""

from .db import Store
from .errors import DatabaseError, LeaseHeld, ReleaseExists, StoreBusy, StoreError

__all__ = ["DatabaseError", "LeaseHeld", "ReleaseExists", "Store", "StoreBusy", "StoreError"]
