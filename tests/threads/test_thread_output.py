"""What one thread prints is captured without touching what the other threads print (``capture_stdout``).

``contextlib.redirect_stdout`` swaps ``sys.stdout`` for the process: two fits on in-process Dask workers, each
capturing its progress with it, restored each other's buffers and left one in ``sys.stdout``, so the program's
later output went nowhere.
"""

from __future__ import annotations

import io
import sys
import threading

from rankcore._thread_output import capture_stdout


def test_each_thread_captures_its_own_text_and_the_others_print_where_they_did(capsys):
    original = sys.stdout
    start, release = threading.Barrier(3), threading.Event()
    buffers = {name: io.StringIO() for name in ("a", "b")}

    def work(name):
        with capture_stdout(buffers[name]):
            start.wait()
            for i in range(50):
                print(f"{name}{i}")
            release.wait(10)

    threads = [threading.Thread(target=work, args=(name,)) for name in buffers]
    for thread in threads:
        thread.start()
    start.wait()
    print("main while they capture")
    release.set()
    for thread in threads:
        thread.join(10)
    print("main after")
    assert sys.stdout is original                       # the last capture put the stream back
    for name, buffer in buffers.items():
        assert buffer.getvalue().split() == [f"{name}{i}" for i in range(50)]
    assert capsys.readouterr().out == "main while they capture\nmain after\n"


def test_captures_end_in_any_order_and_nest():
    original = sys.stdout
    outer, inner, other = io.StringIO(), io.StringIO(), io.StringIO()
    ready, done = threading.Event(), threading.Event()

    def elsewhere():
        with capture_stdout(other):
            ready.set()
            done.wait(10)
            print("other")

    thread = threading.Thread(target=elsewhere)
    thread.start()
    ready.wait(10)
    with capture_stdout(outer):
        print("outer 1")
        with capture_stdout(inner):
            print("inner")
        print("outer 2")
    done.set()                                          # the other thread's capture ends after this one's
    thread.join(10)
    assert (outer.getvalue(), inner.getvalue(), other.getvalue()) == ("outer 1\nouter 2\n", "inner\n", "other\n")
    assert sys.stdout is original
