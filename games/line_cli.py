"""The loop shared by the line-based solver commands (``games.connect4.solve_cli``,
``games.pig.solve_cli``): one answer a line of stdin on stdout, invalid lines reported on stderr.

An invalid line prints ``line N: ...`` on stderr and no output; the other lines are still answered
and the exit status is 1 at the end (after ``K invalid line(s)`` on stderr). Undecodable bytes on
the process's stdin become U+FFFD, so nothing typed makes the process die. Status 130 is an
interrupt, 1 a closed output pipe (e.g. piped into ``head``), 2 bad options (argparse).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

#: one line of input (with its newline) -> the line to print on stdout
Answer = Callable[[str], str]


class InvalidLine(ValueError):
    """A line the command cannot answer; its text follows ``line N: `` on stderr."""


def line_command(
    build_parser: Callable[[], argparse.ArgumentParser],
    make_answer: Callable[[argparse.Namespace, TextIO], Answer],
    doc: str,
) -> Callable[..., int]:
    """The ``main(argv, stdin, stdout, stderr)`` of a line-based command.

    Args:
        build_parser: the command's options.
        make_answer: ``(args, stderr)`` -> the function answering one line; it raises
            ``InvalidLine`` for a line it cannot answer, and may write notes on ``stderr``.
        doc: the docstring of the returned ``main``.

    Returns:
        ``main(argv=None, stdin=None, stdout=None, stderr=None) -> int``: runs the command on
        ``argv`` (default ``sys.argv[1:]``) and the streams (default the process's); returns the
        exit status.
    """

    def main(
        argv: Sequence[str] | None = None,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
    ) -> int:
        args = build_parser().parse_args(argv)
        if stdin is None:  # undecodable bytes become U+FFFD and are reported as an invalid line
            stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        stdout = sys.stdout if stdout is None else stdout
        stderr = sys.stderr if stderr is None else stderr
        answer = make_answer(args, stderr)
        bad = 0
        try:
            for number, line in enumerate(stdin, 1):
                try:
                    text = answer(line)
                except InvalidLine as error:
                    print(f"line {number}: {error}", file=stderr, flush=True)
                    bad += 1
                    continue
                print(text, file=stdout, flush=True)
        except KeyboardInterrupt:
            print("interrupted", file=stderr)
            return 130
        except BrokenPipeError:  # e.g. piped into head: stop quietly, also at interpreter exit
            if stdout is sys.stdout:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        if bad:
            print(f"{bad} invalid line(s)", file=stderr)
        return 1 if bad else 0

    main.__doc__ = doc
    return main
