# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: 2026 the devalloc authors
"""Reading a devalloc-bench results file, for every tool here that reads one (tools/plot,
tools/merge-results, tools/check-results, tools/issue-figures): results.json, or results.json.gz
as results/ keeps a run's JSON over 1 MB."""
import gzip
import json


class ResultsError(Exception):
    """A results file that cannot be read, or that is not devalloc-bench's: the message names it."""


def load(path, need_meta=False):
    """The results file at `path` (gzip-compressed when the name ends in .gz) as a dict with a
    'records' list and, when there is one (always with need_meta), a 'meta' dict. Raises
    ResultsError when the file cannot be read or parsed, or has not that shape."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            data = json.load(f)
    except (OSError, EOFError, ValueError) as e:  # gzip errors are OSError / EOFError, JSON ValueError
        raise ResultsError(f"cannot read {path}: {e}") from e
    if not isinstance(data, dict) or not isinstance(data.get("records"), list):
        raise ResultsError(f"{path} is not a devalloc-bench results file (no 'records' list)")
    if (need_meta or "meta" in data) and not isinstance(data.get("meta"), dict):
        raise ResultsError(f"{path} is not a devalloc-bench results file (needs a 'meta' object)")
    return data
