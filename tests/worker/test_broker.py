"""The brokers: the embedded one's unreadable message files never stop a consumer; Redis publishes
through one client and keeps no copy of the tasks a worker holds."""

from __future__ import annotations

import multiprocessing

import pytest
import redis
from celery import Celery

from pbem.config import load_settings
from pbem.runtime import set_runtime
from tests.conftest import build_runtime
from tests.support.celery_proc import CeleryProcess, sender, wait_until
from tests.support.play import outbox_count, start
from tests.support.services import redis_url
from tests.support.smtp_sink import SmtpSink
from worker import broker, celery_config

pytestmark = [pytest.mark.timeout(300), pytest.mark.redis]


@pytest.fixture
def embedded(tmp_path, sqlite_url):
    runtime = build_runtime(tmp_path, sqlite_url, broker_url="filesystem://")
    app = Celery("broker-test", set_as_current=False)
    app.conf.update(celery_config(runtime.settings))
    yield runtime, app
    app.close()
    set_runtime(None)


def queue_folder(runtime):
    return runtime.settings.instance / "broker" / "queue"


def test_an_empty_or_garbled_message_file_is_skipped(embedded):
    runtime, app = embedded
    with app.connection_for_write() as connection:
        assert isinstance(connection.transport, broker.Transport)
        queue = connection.SimpleQueue("celery")
        # Older than any message written now, so a consumer meets them first.
        (queue_folder(runtime) / f"{1:020d}_empty.celery.msg").write_bytes(b"")  # a file another process opened
        (queue_folder(runtime) / f"{2:020d}_garbled.celery.msg").write_bytes(b'{"body": ')
        (queue_folder(runtime) / f"{3:020d}_half.celery.msg.partial").write_bytes(b'{"body": ')
        queue.put({"n": 1})
        message = queue.get(timeout=5)
        assert message.payload == {"n": 1}
        message.ack()
        names = sorted(p.name for p in queue_folder(runtime).iterdir())
        assert names == [f"{3:020d}_half.celery.msg.partial"], "unreadable files dropped, files being written kept"
        queue.close()


def test_a_second_instance_folder_in_one_process_gets_its_own_bindings(tmp_path):
    """Kombu's file-system transport remembers bindings for the whole process; a second
    folder then had no binding file and its messages went nowhere."""
    received = []
    for name in ("first", "second"):
        settings = load_settings(instance=tmp_path / name, broker_url="filesystem://", secret_key="s")
        app = Celery(name, set_as_current=False)
        app.conf.update(celery_config(settings))
        with app.connection_for_write() as connection:
            queue = connection.SimpleQueue("celery")
            queue.put({"folder": name})
            message = queue.get(timeout=5)
            received.append(message.payload["folder"])
            message.ack()
            queue.close()
        app.close()
    assert received == ["first", "second"]


def _produce(settings_values: dict, count: int) -> None:
    app = Celery("producer", set_as_current=False)
    app.conf.update(celery_config(load_settings(**settings_values)))
    with app.connection_for_write() as connection:
        queue = connection.SimpleQueue("race")
        for n in range(count):
            queue.put({"n": n})


def test_consumers_never_see_a_half_written_message(embedded):
    runtime, app = embedded
    values = {"instance": runtime.settings.instance, "broker_url": "filesystem://", "secret_key": "s"}
    producers = [multiprocessing.get_context("fork").Process(target=_produce, args=(values, 300)) for _ in range(3)]
    received = 0
    with app.connection_for_write() as connection:
        queue = connection.SimpleQueue("race")
        for producer in producers:
            producer.start()
        while received < 900:
            message = queue.get(timeout=30)
            assert isinstance(message.payload, dict)
            message.ack()
            received += 1
        queue.close()
    for producer in producers:
        producer.join(timeout=30)
    assert received == 900


@pytest.mark.slow
def test_a_worker_keeps_working_after_an_empty_message_file(embedded, tmp_path):
    runtime, _ = embedded
    with SmtpSink() as sink:
        runtime.settings = runtime.settings.with_(smtp_url=sink.url)
        client, runtime.nudger = sender(runtime.settings)
        (queue_folder(runtime) / "0_empty.celery.msg").write_bytes(b"")
        worker = CeleryProcess("worker", runtime.settings, tmp_path / "worker.log")
        try:
            start(runtime)  # four welcome emails, each nudged through the embedded broker
            wait_until(lambda: len(sink.messages) == 4, 60, "the welcome emails")
            assert worker.proc.poll() is None, worker.log.read_text()
            # A row is marked sent just after the relay accepted it: wait for the mark, not only the mail.
            wait_until(lambda: outbox_count(runtime, status="sent") == 4, 10, "the rows marked sent")
            assert "dropped an unreadable message" in worker.log.read_text()
        finally:
            worker.stop()
            client.close()


def test_messages_come_out_in_the_order_they_were_written(embedded):
    _, app = embedded
    with app.connection_for_write() as connection:
        queue = connection.SimpleQueue("fifo")
        for n in range(30):
            queue.put({"n": n})
        received = []
        for _ in range(30):
            message = queue.get(timeout=5)
            received.append(message.payload["n"])
            message.ack()
        queue.close()
    assert received == list(range(30))
    assert broker.message_stamp() < broker.message_stamp() and len(broker.message_stamp()) == 20


def test_publishing_to_redis_keeps_one_client_per_channel(tmp_path, sqlite_url, monkeypatch):
    """Kombu built a new Redis client object for every published message; the channel now keeps one."""
    url = redis_url()
    redis.Redis.from_url(url).flushdb()
    runtime = build_runtime(tmp_path, sqlite_url, broker_url=url)
    app = Celery("redis-publish-test", set_as_current=False)
    app.conf.update(celery_config(runtime.settings))
    made = []
    create = broker.RedisChannel._create_client

    def counted(channel, *args, **kwargs):
        made.append(args)
        return create(channel, *args, **kwargs)

    monkeypatch.setattr(broker.RedisChannel, "_create_client", counted)
    try:
        with app.connection_for_write() as connection:
            assert isinstance(connection.transport, broker.RedisTransport)
        for number in range(30):
            app.send_task("worker.tasks.deliver_outbox", args=[number])
        queued = redis.Redis.from_url(url).lrange("celery", 0, -1)
        assert len(queued) == 30, "every task reached the queue"
        assert len(made) <= 2, f"{len(made)} clients built for 30 messages"
    finally:
        app.close()
        set_runtime(None)
        redis.Redis.from_url(url).flushdb()


@pytest.fixture
def on_redis(tmp_path, sqlite_url):
    url = redis_url()
    store = redis.Redis.from_url(url)
    store.flushdb()
    runtime = build_runtime(tmp_path, sqlite_url, broker_url=url)
    app = Celery("redis-ack-test", set_as_current=False)
    app.conf.update(celery_config(runtime.settings))
    yield app, store
    app.close()
    set_runtime(None)
    store.flushdb()


def take_one(app: Celery):
    """A connection that has received one task message and not acknowledged it, and that message."""
    connection = app.connection_for_read()
    taken = []
    consumer = connection.Consumer(
        app.amqp.queues["celery"], callbacks=[lambda _body, message: taken.append(message)], accept=["json"]
    )
    consumer.qos(prefetch_count=1)
    consumer.consume()
    while not taken:
        connection.drain_events(timeout=5)
    return connection, taken[0]


def test_a_task_in_hand_is_kept_by_the_worker_and_put_back_if_not_done(on_redis):
    """Redis keeps no copy of a task a worker holds (the broker is only a nudge: two Redis
    transactions per task saved), yet the worker puts it back when the pool process running it
    died (a reject) and when it stops before acknowledging it (a warm shutdown)."""
    app, store = on_redis
    for number in range(3):  # published as worker.send publishes: the queue not declared again
        app.send_task("worker.tasks.deliver_outbox", args=[number], declare=[])
    connection, message = take_one(app)
    try:
        assert store.llen("celery") == 2
        assert not [key for key in store.scan_iter("unacked*")], "Redis keeps no copy of it"
        message.reject(requeue=True)
        assert store.llen("celery") == 3, "a rejected task is back in the queue"
    finally:
        connection.release()
    connection, message = take_one(app)
    assert store.llen("celery") == 2
    connection.release()  # closing without acknowledging it, as a warm shutdown does
    assert store.llen("celery") == 3, "a task held at shutdown is back in the queue"
    connection, message = take_one(app)
    message.ack()
    connection.release()
    assert store.llen("celery") == 2, "an acknowledged task is gone"
