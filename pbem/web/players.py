"""Public player pages ``/players/<name>`` and rating tables ``/ratings/<engine>``: no address, no secret."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, url_for

from engines import registry
from pbem.services import NotFound
from pbem.services.people import profiles, ratings
from pbem.web import common

bp = Blueprint("players", __name__)


@bp.get("/players/<name>")
def player(name: str):
    try:
        data = common.run(profiles.player_page, name)
    except NotFound:
        namesakes = common.run(profiles.players_named, name)
        if len(namesakes) == 1:  # a name typed without its number: the one player it can mean
            return redirect(url_for("players.player", name=namesakes[0]["handle"]), code=302)
        if not namesakes:
            abort(404)
        return render_template("players_named.html", name=name, players=namesakes)
    if data["handle"] != name:  # a renamed player: one address per page
        return redirect(url_for("players.player", name=data["handle"]), code=301)
    titles = {engine.name: engine.title for engine in registry().values()}
    return render_template("player.html", player=data, titles=titles)


@bp.get("/ratings/<engine>")
def table(engine: str):
    engines = registry()
    if engine not in engines:
        abort(404)
    rows = common.run(ratings.leaderboard, engine)
    return render_template("ratings.html", engine=engines[engine], rows=rows, engines=list(engines.values()))
