"""Load once, in a parent process, what each forked worker process would load on its first task.

Celery's prefork pool forks its processes from the worker's parent.  What the
parent has imported and compiled (the inbound pipeline, every installed game,
the mail templates) each child shares from its first task, instead of paying
for it in the middle of a player's message: about a third of a second of CPU
per child where no bytecode files are kept, and again for every child that
replaces one that died.
"""

from __future__ import annotations

import gc


def preload() -> int:
    """Import the task paths and the games and compile the mail templates; how many templates.

    What is loaded is then frozen out of the garbage collector's reach (the
    standard library's advice for a parent that forks): a child's collections
    no longer walk the inherited objects, which costs time on every full
    collection and, by touching them, copies their memory into each child.
    """
    import engines
    from pbem.inbound import pipeline, runner  # noqa: F401 (a message's task and all its handlers)
    from pbem.mail import compose

    engines.registry()
    compiled = compose.compile_all()
    gc.collect()
    gc.freeze()
    return compiled
