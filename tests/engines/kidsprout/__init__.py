"""KidSprout Jumboree rules tests, one or more per numbered rule of both rule texts.

Where to find each rule (v0.2 numbering first, v0.1 in brackets where it differs):

* Setup 1-5 and the roll-off: ``test_setup.py``.
* Game Play 1-8 (same in v0.1), 11 (Buck moves; a decision for v0.1) and 12:
  ``test_play.py``.
* Game Play 9 [v0.1: 11] (Schedule, Craft Time then a 2-hour Activity) and 10
  (Overnight): ``test_scoring.py``.
* v0.1 Game Play 9-10 (stressed out, fall-through, all tied and stressed):
  ``test_v01.py``.
* End of the Day 1-5 [v0.1: 3-7] (scoring, 44 points, new day, winner):
  ``test_scoring.py``; v0.1 End of the Day 1-2 (no exemption on the last
  Activity, Overnight): ``test_v01.py``.
* Order grammar, refusals, canonical texts, sealed-coin replacement, the email
  Excuse phase, missed-deadline defaults, views and text: ``test_orders.py``.
* ``pbem engines --json`` and ``pbem selfplay`` for this game: ``test_cli.py``.
"""
