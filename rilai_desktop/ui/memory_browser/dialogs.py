"""The memory browser's dialogs: correcting an entry's text, and "Forget everything…",
which goes ahead only once the person has typed FORGET."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

CONFIRM_WORD = "FORGET"
FORGET_TEXT = (
    "<p><b>This removes everything Rilai remembers, for good.</b></p>"
    "<p>Gone: every memory (what you said, the facts about you, episodes, threads and goals),"
    " the categories and their files, the journal, and <b>all your conversations</b> —"
    " the memories were made from them, so they go too. The database is then compacted so"
    " the text is really gone from the disk.</p>"
    "<p>Kept: your knowledge bases (your own documents) and your settings.</p>"
    f"<p>There is no undo. Type <b>{CONFIRM_WORD}</b> to go ahead.</p>"
)


class ForgetDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Forget everything")
        self.setAccessibleName("Forget everything")
        text = QLabel(FORGET_TEXT)
        text.setWordWrap(True)
        text.setAccessibleName("What forgetting everything removes")
        self.word = QLineEdit()
        self.word.setAccessibleName(f"Type {CONFIRM_WORD} to confirm")
        self.word.setPlaceholderText(CONFIRM_WORD)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.forget_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.forget_button.setText("Forget everything")
        self.forget_button.setAccessibleName("Forget everything now")
        self.forget_button.setEnabled(False)
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        cancel.setAccessibleName("Keep everything")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.word.textChanged.connect(
            lambda t: self.forget_button.setEnabled(t.strip() == CONFIRM_WORD)
        )
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.word)
        layout.addWidget(self.buttons)
        self.resize(460, 300)

    def accept(self) -> None:
        if self.word.text().strip() == CONFIRM_WORD:
            super().accept()


class EditDialog(QDialog):
    """The entry's text, to correct; what is saved is what is recalled from now on."""

    def __init__(self, text: str, source: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit what Rilai remembers")
        self.setAccessibleName("Edit what Rilai remembers")
        note = QLabel(f"From {source}. Your correction is what Rilai recalls from now on.")
        note.setWordWrap(True)
        note.setAccessibleName("Where this entry came from")
        self.editor = QPlainTextEdit(text)
        self.editor.setAccessibleName("The entry's text")
        self.editor.setTabChangesFocus(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Save).setAccessibleName(
            "Save the correction"
        )
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setAccessibleName(
            "Keep it as it was"
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.editor, 1)
        layout.addWidget(buttons)
        self.resize(440, 220)

    @property
    def text(self) -> str:
        return self.editor.toPlainText().strip()
