"""Read-only sequences whose element `i` is computed on demand (a decoded record, a string
read from a memory map, an id picked by row): the indexing rules written once."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import ClassVar, TypeVar, overload

T = TypeVar("T")


class IndexedSequence(Sequence[T]):
    """A Sequence given `__len__` and `_at(i)` for 0 <= i < len: negative indexes count
    from the end, slices give lists, and an index out of range is an IndexError saying
    `"<element> <index> out of range for <len> <elements>"`."""

    element: ClassVar[str] = "element"
    elements: ClassVar[str] = "elements"

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def _at(self, i: int) -> T:
        """Element `i`, where 0 <= i < len(self)."""

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        n = len(self)
        if isinstance(index, slice):
            return [self._at(i) for i in range(*index.indices(n))]
        i = int(index)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"{self.element} {index} out of range for {n} {self.elements}")
        return self._at(i)
