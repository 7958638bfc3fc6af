"""``python -m engines.classical adjudicate``: cases as JSON on standard input, answers on standard output.

See :mod:`engines.classical.position` for the format.  A case that cannot be read
answers ``{"error": ...}`` and the others are still answered; the exit status is
1 if any case could not be read, 2 if the input is not a JSON list or the command
is unknown.
"""

from __future__ import annotations

import json
import sys

from engines.classical.position import adjudicate_cases

USAGE = "usage: python -m engines.classical adjudicate < cases.json"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args != ["adjudicate"]:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        cases = json.loads(sys.stdin.read())
    except ValueError as error:
        print(f"the input is not JSON: {error}", file=sys.stderr)
        return 2
    if not isinstance(cases, list):
        print("the input must be a JSON list of cases", file=sys.stderr)
        return 2
    answers = adjudicate_cases(cases)
    json.dump(answers, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 1 if any("error" in answer for answer in answers) else 0


if __name__ == "__main__":
    sys.exit(main())
