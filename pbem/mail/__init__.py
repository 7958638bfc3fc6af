"""Email as text and bytes: parsing, quoting, addressing, rendering, MIME.

Pure functions on messages and settings, below the services that use them to
write emails; the inbound side that calls the services is :mod:`pbem.inbound`.
"""
