"""A message's header: who and when on the left, the actions on the right, on one line while
they all fit; narrower, the actions wrap onto lines of their own under it, each button
whole (issue 31: squeezed into one line at 1024x768 with both docks open, Qt elided them,
"Re…te", and the row's minimum width, wider than the conversation, cut the reply's last
line).

The layout has a height for its width, so the row it is in grows by the lines it wraps to,
and its minimum width is its widest item's, not the sum of them all.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget

Line = list[tuple[QLayoutItem, QSize]]


class HeaderLayout(QLayout):
    """The first item (who and when) left, the others (the actions) right-aligned after it;
    hidden widgets take no room."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self.setContentsMargins(0, 0, 0, 0)

    # ── QLayout ───────────────────────────────────────────────────────────
    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:
        """All on one line."""
        sizes = [size for _, size in self._shown()]
        width = sum(s.width() for s in sizes) + self._gap() * max(0, len(sizes) - 1)
        height = max((s.height() for s in sizes), default=0)
        return self._with_margins(QSize(width, height))

    def minimumSize(self) -> QSize:
        """As narrow as the widest item: everything else wraps."""
        shown = self._shown()
        width = max((item.minimumSize().width() for item, _ in shown), default=0)
        height = max((size.height() for _, size in shown), default=0)
        return self._with_margins(QSize(width, height))

    # ── lines ─────────────────────────────────────────────────────────────
    def lines(self, width: int) -> int:
        """How many lines the header takes in a layout ``width`` wide."""
        margins = self.contentsMargins()
        return len(self._lines(width - margins.left() - margins.right()))

    def _gap(self) -> int:
        return max(0, self.spacing())

    def _with_margins(self, size: QSize) -> QSize:
        margins = self.contentsMargins()
        return size.grownBy(margins)

    def _shown(self) -> Line:
        return [(item, item.sizeHint()) for item in self._items if not item.isEmpty()]

    def _lines(self, width: int) -> list[Line]:
        """Who and when and the actions on one line if they fit in ``width``; if not, who and
        when alone, then as many actions a line as fit (at least one)."""
        shown = self._shown()
        if len(shown) < 2:
            return [shown] if shown else []
        gap = self._gap()
        if sum(size.width() for _, size in shown) + gap * (len(shown) - 1) <= width:
            return [shown]
        lines: list[Line] = [shown[:1]]
        line: Line = []
        used = 0
        for item, size in shown[1:]:
            need = size.width() + (gap if line else 0)
            if line and used + need > width:
                lines.append(line)
                line, used = [], 0
                need = size.width()
            line.append((item, size))
            used += need
        lines.append(line)
        return lines

    def _place(self, rect: QRect, *, move: bool) -> int:
        """Lay the lines out in ``rect`` (``move``: set the items' geometry); the height
        they take."""
        area = rect.marginsRemoved(self.contentsMargins())
        gap = self._gap()
        y = area.y()
        for n, line in enumerate(self._lines(area.width())):
            if n:
                y += gap
            height = max(size.height() for _, size in line)
            if move:
                self._place_line(line, area, y, height, n == 0)
            y += height
        margins = self.contentsMargins()
        return y - area.y() + margins.top() + margins.bottom()

    def _place_line(self, line: Line, area: QRect, y: int, height: int, first: bool) -> None:
        gap = self._gap()
        actions = line[1:] if first else line
        x = area.right() + 1 - sum(size.width() for _, size in actions) - gap * (len(actions) - 1)
        if first:  # who and when, on the left; the actions of this line, if any, right
            item, size = line[0]
            room = area.width() if not actions else x - gap - area.x()
            width = max(0, min(size.width(), room))
            top = y + (height - size.height()) // 2
            item.setGeometry(QRect(QPoint(area.x(), top), QSize(width, size.height())))
        x = max(x, area.x())
        for item, size in actions:
            width = min(size.width(), area.right() + 1 - x)
            top = y + (height - size.height()) // 2
            item.setGeometry(QRect(QPoint(x, top), QSize(width, size.height())))
            x += width + gap
