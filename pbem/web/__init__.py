"""Web blueprints: public pages, player pages, admin console, dev mailbox."""
