"""``InitModelColumns``: ``init_model``'s refusal of columns it gives by index, with the indices as fields.

The library knows columns by index; a caller that knows their names (the command line's header) says the same
refusal with names through :meth:`InitModelColumns.said`, instead of finding the indices in the text.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["InitModelColumns"]


class InitModelColumns(ValueError):
    """``init_model`` refused for its columns (a ``ValueError``): split by other category groups (``kind``
    ``"split"``: ``columns`` the model's, ``own_columns`` this fit's) or one column's categories differ (``kind``
    ``"categories"``: ``column``, and ``theirs``/``ours`` the two category lists as said).

    ``str(exc)`` says the columns by index; :meth:`said` by any name.
    """

    #: How a message that names the class says it (``shown_type``): the ValueError it was before it had fields
    shown_as = "ValueError"

    def __init__(self, source: str, kind: str, *, columns: tuple = (), own_columns: tuple = (),
                 column: int | None = None, theirs: str = "", ours: str = "") -> None:
        if kind not in ("split", "categories"):
            raise TypeError(f"InitModelColumns: kind must be 'split' or 'categories', got {kind!r}")
        self.source, self.kind = source, kind
        self.columns, self.own_columns = tuple(int(j) for j in columns), tuple(int(j) for j in own_columns)
        self.column, self.theirs, self.ours = column, theirs, ours
        super().__init__(self.said())

    def __reduce__(self) -> tuple:
        # the fields rebuild it (BaseException's reduce would call __init__ with the message alone); the rest of the
        # instance's dict (``add_note``'s ``__notes__``, attributes a caller set) is restored as BaseException's is
        fields = ("source", "kind", "columns", "own_columns", "column", "theirs", "ours")
        state = {k: v for k, v in self.__dict__.items() if k not in fields}
        return (_rebuild, tuple([type(self)] + [getattr(self, k) for k in fields]), state or None)

    def said(self, name: Callable[[int], str] = str) -> str:
        """The message with each column said by ``name(index)`` (default: its index)."""
        if self.kind == "split":
            return (f"{self.source}: the model splits the columns [{_listed(self.columns, name)}] by category "
                    f"groups, this fit [{_listed(self.own_columns, name)}]; give the same categorical_features, "
                    "category columns or learner categorical columns")
        return (f"{self.source}: column {name(self.column)}'s categories differ from the model's ({self.theirs} "
                f"against X's {self.ours}): its trees split the category codes; give the column the model's "
                "categories (pandas: set_categories)")


def _listed(columns: tuple, name: Callable[[int], str]) -> str:
    return ", ".join(name(j) for j in columns)


def _rebuild(cls: Any, source: str, kind: str, columns: tuple, own_columns: tuple, column: Any, theirs: str,
             ours: str) -> InitModelColumns:
    return cls(source, kind, columns=columns, own_columns=own_columns, column=column, theirs=theirs, ours=ours)
