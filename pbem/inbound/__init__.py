"""Mail in: the listeners (SMTP, IMAP, the pipe) store each message's raw bytes,
then the pipeline reads it and calls the services in one unit of work.

Above :mod:`pbem.services` (which it calls) and :mod:`pbem.mail` (the formatting
it shares with the outbox); nothing below imports it.
"""
