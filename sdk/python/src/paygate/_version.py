"""The SDK's version, sent in the User-Agent as paygate-python/<version>."""

__version__ = "0.1.0"
