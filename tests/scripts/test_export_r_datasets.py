"""The R export script's task tables (tools/export_r_datasets.py): consistent without R installed.

Each task is looked up by name across the groups, so a name in two groups
would silently export the first group's task; a dropped column that is the
label, or an empty list of positive levels, would export a broken task.
"""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "export_r_datasets.py"

pytestmark = pytest.mark.skipif(not SCRIPT.exists(), reason="needs the source checkout's tools/")


@pytest.fixture(scope="module")
def export():
    spec = importlib.util.spec_from_file_location("rankcore_tools_export_r", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_task_name_is_in_one_group(export):
    names = [name for tasks in export.GROUPS.values() for name in tasks]
    assert len(names) == len(set(names))
    for tasks in export.GROUPS.values():
        for name in tasks:
            assert export._spec(name) == tasks[name]
    with pytest.raises(KeyError):
        export._spec("no-such-task")


def test_no_two_tasks_read_the_same_data(export):
    # a later group must not repeat an earlier one's data under another name (the tenth nearly did:
    # attrition and cells), or its check is not a check on unseen data
    frames = [(package, data_file, obj) for tasks in export.GROUPS.values()
              for package, data_file, obj, *_ in tasks.values()]
    assert len(frames) == len(set(frames))


@pytest.mark.parametrize("group", ["held-out", "verify", "fresh", "missing", "sixth", "seventh", "eighth",
                                   "ninth", "tenth", "eleventh", "twelfth",
                                   "thirteenth", "fourteenth", "fifteenth", "sixteenth",
                                   "seventeenth"])
def test_tasks_are_well_formed(export, group):
    for name, (package, data_file, obj, target, positive, drop) in export.GROUPS[group].items():
        assert name == name.lower() and " " not in name
        assert package and data_file and obj and target
        assert isinstance(positive, tuple) and positive and all(isinstance(p, str) for p in positive)
        assert target not in drop, f"{name}: the label is dropped"
        assert len(set(drop)) == len(drop)


def test_only_later_groups_leave_unlabeled_rows_out(export):
    # the groups compared before the fifth keep their exports as they were compared
    assert set(export.DROP_UNLABELED) == (set(export.MISSING_TASKS) | set(export.EIGHTH_TASKS) | set(export.NINTH_TASKS)
                                           | set(export.TENTH_TASKS) | set(export.ELEVENTH_TASKS)
                                           | set(export.TWELFTH_TASKS) | set(export.THIRTEENTH_TASKS)
                                           | set(export.FOURTEENTH_TASKS) | set(export.FIFTEENTH_TASKS)
                                           | set(export.SIXTEENTH_TASKS) | set(export.SEVENTEENTH_TASKS))
    for group in ("held-out", "verify", "fresh", "sixth", "seventh"):
        assert not set(export.GROUPS[group]) & set(export.DROP_UNLABELED)


def test_columns_become_floats(export):
    pd = pytest.importorskip("pandas")
    numeric_levels = export._column(pd.Series(["3", "1", None, "10"], dtype="category"))
    np.testing.assert_array_equal(numeric_levels[[0, 1, 3]], [3.0, 1.0, 10.0])
    assert math.isnan(numeric_levels[2])
    named = export._column(pd.Series(["b", "a", "b", None]))
    np.testing.assert_array_equal(named[:3], [1.0, 0.0, 1.0])      # level codes, in sorted order
    assert math.isnan(named[3])
    plain = export._column(pd.Series([1.5, None, 2.0]))
    assert plain[0] == 1.5 and math.isnan(plain[1]) and plain[2] == 2.0
